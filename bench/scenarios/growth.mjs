/**
 * Scenario 8: how each tool grows with the length of a run. The long tool-using loop of scenario 3
 * at several lengths; for each length and tool: replay time, per-step cost, bytes on disk, and the
 * load time and memory of the recording in a fresh process. Nothing here assumes a cassette format:
 * it measures what the built packages do.
 */
import { statSync } from 'node:fs'
import OpenAI from 'openai'
import { measureFreshLoad } from '../lib/fresh-load.mjs'
import { median, ratioTo, summarize, timeReplays } from '../lib/stats.mjs'
import { longRunScript, runLongAgent } from '../lib/traffic.mjs'

export const GROWTH_STEPS = [50, 100, 200, 300]
const QUICK_STEPS = [20, 40]
/** The tools whose recordings are loaded in a fresh process (the floor keeps nothing on disk). */
const LOADED = ['agent-tape', 'polly', 'nock']

export async function growth({ contenders, names, provider, config }) {
  const lengths = config.quick ? QUICK_STEPS : GROWTH_STEPS
  const series = []
  for (const steps of lengths) {
    process.stderr.write(`   ${steps} steps\n`)
    series.push(await measureLength({ contenders, names, provider, config }, steps))
  }
  return {
    lengths,
    series,
    sizeSlope: slopesOf(series, (point, c) => point.sizes[c]),
    loadSlope: slopesOf(series, (point, c) => point.load[c]?.load.median),
  }
}

async function measureLength({ contenders, names, provider, config }, steps) {
  const name = `growth-${steps}`
  const stepMs = Object.fromEntries(names.map((c) => [c, []]))
  const run = async (tools, into) => {
    const client = new OpenAI({ apiKey: 'sk-test', baseURL: provider.openaiBaseURL, maxRetries: 0 })
    const result = await runLongAgent(client, tools, steps)
    if (result.stepMs.length !== steps) {
      throw new Error(`growth: the ${steps}-step run took ${result.stepMs.length} steps; the script is off`)
    }
    into?.push(result.stepMs)
  }
  provider.script.push(longRunScript(steps))
  let bodies
  try {
    for (const c of names) {
      const first = provider.requests.length
      await contenders[c].record(name, (tools) => run(tools))
      if (c === 'agent-tape') bodies = provider.requests.slice(first).map((r) => r.rawBody)
    }
  } finally {
    provider.script.pop()
  }

  const times = await timeReplays(
    { contenders, names, config: { rounds: roundsFor(steps, config) } },
    name,
    (c) => (tools) => run(tools, stepMs[c]),
  )
  const probes = [1, Math.round(steps / 2), steps].map((step) => {
    const [from, to] = windowOf(step, steps)
    const kb = bodies.slice(from - 1, to).reduce((sum, b) => sum + Buffer.byteLength(b), 0) / (to - from + 1)
    return { step, bytes: Buffer.byteLength(bodies[step - 1]), windowBytes: kb }
  })
  const perStep = Object.fromEntries(
    names.map((c) => [
      c,
      probes.map((p) => median(stepMs[c].flatMap((s) => s.slice(...sliceOf(p.step, steps))))),
    ]),
  )
  const sizes = Object.fromEntries(
    names
      .filter((c) => c !== 'floor')
      .map((c) => [c, contenders[c].files(name).reduce((sum, f) => sum + statSync(f).size, 0)]),
  )
  const load = {}
  for (const c of LOADED.filter((tool) => names.includes(tool))) {
    load[c] = measureFreshLoad({
      tool: c,
      path: contenders[c].files(name)[0],
      expected: c === 'agent-tape' ? steps * 2 - 1 : steps,
      repeat: config.quick ? 1 : 3,
    })
  }
  return {
    steps,
    rounds: roundsFor(steps, config),
    historyBytes: Buffer.byteLength(bodies.at(-1)),
    times,
    summary: Object.fromEntries(names.map((c) => [c, summarize(times[c])])),
    vsFloor: Object.fromEntries(names.map((c) => [c, median(ratioTo(times[c], times.floor))])),
    probes,
    perStep,
    extraPerKb: Object.fromEntries(names.map((c) => [c, extraPerKb(perStep, probes, c)])),
    sizes,
    load,
  }
}

/** Fewer rounds for the longest runs: a 300-step replay round of every tool takes seconds. */
function roundsFor(steps, config) {
  if (config.quick || steps < 200) return config.rounds
  return steps < 300 ? { warmup: 1, repeat: 5 } : { warmup: 1, repeat: 3 }
}

/** The eleven steps around `step` (one step alone is too noisy), kept inside the run: [from, to], 1-based. */
function windowOf(step, steps) {
  const from = Math.max(1, Math.min(step - 5, steps - 10))
  return [from, Math.min(steps, from + 10)]
}

function sliceOf(step, steps) {
  const [from, to] = windowOf(step, steps)
  return [from - 1, to]
}

/**
 * What a step costs over the floor's step, per KB of history, in µs: the growth of that extra
 * between the middle and the last probes, over the growth of the request body between them.
 */
function extraPerKb(perStep, probes, c) {
  const extra = (i) => perStep[c][i] - perStep.floor[i]
  const kb = (probes[2].windowBytes - probes[1].windowBytes) / 1024
  return ((extra(2) - extra(1)) / kb) * 1000
}

/** Least-squares slope of log(value) against log(steps), per tool: 1 is linear, 2 quadratic. */
function slopesOf(series, measureOf) {
  const tools = Object.keys(series[0].sizes).concat(Object.keys(series[0].load))
  return Object.fromEntries(
    [...new Set(tools)]
      .map((c) => {
        const points = series
          .map((p) => [Math.log(p.steps), Math.log(measureOf(p, c))])
          .filter(([, y]) => Number.isFinite(y))
        if (points.length < 2) return [c, undefined]
        const mx = points.reduce((s, [x]) => s + x, 0) / points.length
        const my = points.reduce((s, [, y]) => s + y, 0) / points.length
        const sxy = points.reduce((s, [x, y]) => s + (x - mx) * (y - my), 0)
        const sxx = points.reduce((s, [x]) => s + (x - mx) ** 2, 0)
        return [c, sxy / sxx]
      })
      .filter(([, slope]) => slope !== undefined),
  )
}
