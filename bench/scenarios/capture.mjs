/**
 * Scenario 11: what capturing costs a server. The same Express server (a 6-step agent on the
 * openai SDK per request, against the loopback fake provider in a process of its own, every
 * 100th run failing) runs three times side by side: without capture, with a capture at sample 0,
 * and with sample 1 keeping failed runs. autocannon drives each with 200 concurrent requests,
 * 1000 runs at a time in a rotating order, for several rounds; each round's latency and throughput are
 * compared with the plain server's in the same round (the machine is shared and noisy), and the
 * medians of those ratios reported.
 */
import { spawn } from 'node:child_process'
import { mkdtempSync, readdirSync, rmSync } from 'node:fs'
import { loadavg, tmpdir } from 'node:os'
import { join } from 'node:path'
import autocannon from 'autocannon'
import { median, rounds } from '../lib/stats.mjs'

const SERVER = new URL('../lib/capture-server.mjs', import.meta.url).pathname
const PROVIDER = new URL('../lib/capture-provider.mjs', import.meta.url).pathname
export const CAPTURE_VARIANTS = ['none', 'context', 'sample-0', 'sample-0.1', 'sample-1', 'keep-all']
const CONNECTIONS = 200
const BODY = JSON.stringify({
  ticket:
    'INV-412: I was charged twice for my March invoice (42.00 EUR each time). Please refund the duplicate payment.',
})

export async function captureOverhead({ config }) {
  const dir = mkdtempSync(join(tmpdir(), 'agent-tape-capture-bench-'))
  const children = []
  try {
    const provider = await start(children, PROVIDER, [], 'url')
    const servers = {}
    for (const variant of CAPTURE_VARIANTS) {
      const args = [variant, provider.value, join(dir, variant)]
      const { child, value } = await start(children, SERVER, args, 'port', config.captureNode)
      servers[variant] = { url: `http://127.0.0.1:${value}/triage`, child }
    }
    // A number of runs per round, not a duration: on a loaded machine a run of 200 concurrent
    // ones can take longer than a window, which would then measure no latency at all.
    // Many short rounds rather than a few long ones: the median of their ratios holds against the
    // bursts of a shared machine better than the ratio of a few.
    const amount = config.captureAmount ?? (config.quick ? 400 : 600)
    const plan = config.captureRounds ?? (config.quick ? { warmup: 1, repeat: 2 } : { warmup: 1, repeat: 9 })
    const runs = {}
    const times = await rounds(CAPTURE_VARIANTS, plan, async (variant) => {
      const { child, url } = servers[variant]
      const before = await ask(child, 'cpu')
      const result = await load(url, amount)
      const after = await ask(child, 'cpu')
      // The server's own CPU time per run it served: steadier than latency on a shared machine.
      result.cpuPerRun = (after.ms - before.ms) / Math.max(1, after.runs - before.runs)
      // Its peak resident set size while serving the round, in MB.
      result.rssMb = after.rss / 1024 / 1024
      runs[variant] ??= []
      runs[variant].push(result)
      return result
    })
    // The warm-up round is dropped from `times` by `rounds`, and from `runs` here.
    for (const variant of CAPTURE_VARIANTS) runs[variant] = runs[variant].slice(plan.warmup)
    const stats = await ask(servers['sample-1'].child, 'stats')
    const files = readdirSync(join(dir, 'sample-1')).filter((f) => f.endsWith('.jsonl')).length
    const keptAll = await ask(servers['keep-all'].child, 'stats')
    const node = await nodeVersion(config.captureNode ?? process.execPath)
    // The machine is shared: how busy it was says how far to trust the ratios.
    const loadAverage = loadavg().map((x) => Number(x.toFixed(2)))
    return summarize(times, {
      amount,
      connections: CONNECTIONS,
      rounds: plan.repeat,
      stats,
      keptAll,
      files,
      node,
      load: loadAverage,
    })
  } finally {
    for (const child of children) child.kill()
    rmSync(dir, { recursive: true, force: true })
  }
}

/** `amount` runs on `url`, 200 at a time: latency percentiles in ms, runs per second, failures. */
async function load(url, amount) {
  const result = await autocannon({
    url,
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: BODY,
    connections: CONNECTIONS,
    amount,
    // A run waits for its turn behind 199 others: no client timeout cuts it short.
    timeout: 300,
  })
  const ok = result.requests.total - result.non2xx
  return {
    p50: result.latency.p50,
    p99: result.latency.p99,
    rps: result.requests.total / (result.duration || 1),
    total: result.requests.total,
    // Every 100th run fails on purpose, with a 500; anything else is a failure of the server.
    errors: result.errors + result.timeouts,
    failedShare: result.non2xx / Math.max(1, result.requests.total),
    ok,
  }
}

function summarize(times, info) {
  const base = times.none
  const ratio = (variant, field) => median(times[variant].map((r, i) => r[field] / base[i][field]))
  const row = (variant) => ({
    p50: median(times[variant].map((r) => r.p50)),
    p99: median(times[variant].map((r) => r.p99)),
    rps: median(times[variant].map((r) => r.rps)),
    cpuPerRun: median(times[variant].map((r) => r.cpuPerRun)),
    rssMb: Math.max(...times[variant].map((r) => r.rssMb)),
    errors: times[variant].reduce((sum, r) => sum + r.errors, 0),
    failedShare: median(times[variant].map((r) => r.failedShare)),
    ratios: {
      p50: ratio(variant, 'p50'),
      p99: ratio(variant, 'p99'),
      rps: ratio(variant, 'rps'),
      cpuPerRun: ratio(variant, 'cpuPerRun'),
    },
    rssAboveMb: Math.max(...times[variant].map((r) => r.rssMb)) - Math.max(...base.map((r) => r.rssMb)),
    perRound: times[variant],
  })
  return { ...info, variants: Object.fromEntries(CAPTURE_VARIANTS.map((v) => [v, row(v)])) }
}

function nodeVersion(node) {
  return new Promise((resolve) => {
    const child = spawn(node, ['-p', 'process.version'])
    let out = ''
    child.stdout.on('data', (d) => (out += d))
    child.on('exit', () => resolve(out.trim()))
  })
}

/** Starts `script` with `args` and waits for its `<label> <value>` line. */
function start(children, script, args, label, node = process.execPath) {
  return new Promise((resolve, reject) => {
    const child = spawn(node, [script, ...args], { stdio: ['pipe', 'pipe', 'inherit'] })
    children.push(child)
    let out = ''
    const onData = (data) => {
      out += data
      const match = new RegExp(`^${label} (\\S+)$`, 'm').exec(out)
      if (match) {
        child.stdout.off('data', onData)
        resolve({ child, value: match[1] })
      }
    }
    child.stdout.on('data', onData)
    child.on('exit', (code) => reject(new Error(`${script} exited with ${code} before it was ready`)))
  })
}

/** Sends `command` to a server and resolves with the JSON of its `<command> <json>` answer. */
function ask(child, command) {
  return new Promise((resolve) => {
    let out = ''
    const onData = (data) => {
      out += data
      const match = new RegExp(`^${command} (.*)$`, 'm').exec(out)
      if (match) {
        child.stdout.off('data', onData)
        resolve(JSON.parse(match[1]))
      }
    }
    child.stdout.on('data', onData)
    child.stdin.write(`${command}\n`)
  })
}
