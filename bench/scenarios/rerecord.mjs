/**
 * Scenario 9: what a re-record changes on disk. A 50-step run is recorded, then re-recorded over
 * the same recording after a one-word edit of the system prompt; the model answers the same. The
 * two versions of each tool's files are compared with `git diff --no-index`: lines added and
 * removed (`--numstat`) and the bytes of the unified diff, as a reviewer would see them.
 */
import { spawnSync } from 'node:child_process'
import { copyFileSync, mkdirSync, readFileSync, statSync } from 'node:fs'
import { createServer, request } from 'node:http'
import { basename, join } from 'node:path'
import { startFakeProvider } from '@agent-tape/fake-provider'
import OpenAI from 'openai'
import { createContenders } from '../lib/contenders.mjs'
import { longRunScript, runLongAgent } from '../lib/traffic.mjs'

export const RERECORD_STEPS = 50
/** The one-word edit of the system prompt; the fake model answers both prompts the same. */
export const EDIT = { from: 'helpful', to: 'careful' }
const promptWith = (word) => `You are a ${word} agent: look records up one by one and then summarize.`
const TOOLS = ['agent-tape', 'polly', 'nock']

export async function rerecordDiff({ dir, config }) {
  const steps = config.quick ? 10 : RERECORD_STEPS
  const name = `rerecord-${steps}`
  // Both recordings must see the same answers (the provider's ids come from a seed and a counter)
  // at the same address (Polly and nock keep the URL): a fresh provider with the same seed behind
  // one fixed loopback port for each recording.
  const front = await startFront()
  const contenders = createContenders({ dir: join(dir, 'rerecord'), modelEndpoint: front.url })
  const results = {}
  try {
    for (const c of TOOLS) {
      await front.withProvider(steps, () =>
        contenders[c].record(name, runWith(front, steps, promptWith(EDIT.from))),
      )
      const files = contenders[c].files(name)
      const before = files.map((f) => {
        const copy = join(dir, 'rerecord', 'before', c, basename(f))
        mkdirSync(join(dir, 'rerecord', 'before', c), { recursive: true })
        copyFileSync(f, copy)
        return copy
      })
      await front.withProvider(steps, () =>
        contenders[c].rerecord(name, runWith(front, steps, promptWith(EDIT.to))),
      )
      const after = contenders[c].files(name)
      if (after.length !== before.length) {
        throw new Error(
          `re-record: ${c} wrote ${after.length} files where the first recording wrote ${before.length}; the diff would compare the wrong files`,
        )
      }
      // A real re-record holds the new prompt and nothing of the old one (no kept or appended entries).
      const holds = (paths, word) => paths.some((f) => readFileSync(f, 'utf8').includes(promptWith(word)))
      if (!holds(before, EDIT.from) || holds(after, EDIT.from) || !holds(after, EDIT.to)) {
        throw new Error(
          `re-record: ${c}'s recording ${after.join(', ')} does not hold the edited prompt alone after the re-record: it did not re-record. Check the mode it records in.`,
        )
      }
      const diffs = before.map((b, i) => diffFiles(b, after[i]))
      results[c] = {
        files: after.length,
        added: sum(diffs, 'added'),
        removed: sum(diffs, 'removed'),
        diffBytes: sum(diffs, 'diffBytes'),
        bytes: after.reduce((total, f) => total + statSync(f).size, 0),
      }
    }
  } finally {
    await front.close()
  }
  return { steps, edit: EDIT, tools: results }
}

function runWith(front, steps, system) {
  return async (tools) => {
    const client = new OpenAI({ apiKey: 'sk-test', baseURL: `${front.url}/v1`, maxRetries: 0 })
    const result = await runLongAgent(client, tools, steps, { system })
    if (result.stepMs.length !== steps) {
      throw new Error(
        `re-record: the ${steps}-step run took ${result.stepMs.length} steps; the script is off`,
      )
    }
  }
}

/** `git diff --no-index` of two files: lines added and removed, and the bytes of the unified diff. */
function diffFiles(a, b) {
  const git = (...args) => {
    const out = spawnSync('git', ['diff', '--no-index', '--no-color', '--no-ext-diff', ...args, a, b], {
      maxBuffer: 1024 ** 3,
    })
    // 0: the same, 1: they differ; anything else is git failing.
    if (out.status !== 0 && out.status !== 1) {
      throw new Error(`re-record: git diff --no-index ${a} ${b} failed (${out.status}): ${out.stderr}`)
    }
    return out.stdout
  }
  const numstat = git('--numstat').toString('utf8').trim()
  if (numstat === '') return { added: 0, removed: 0, diffBytes: 0 }
  const [added, removed] = numstat.split('\t')
  if (added === '-') throw new Error(`re-record: git takes ${a} for a binary file; it cannot count lines`)
  return { added: Number(added), removed: Number(removed), diffBytes: git().length }
}

function sum(items, key) {
  return items.reduce((total, item) => total + item[key], 0)
}

/**
 * A loopback HTTP server that forwards each request to the provider of the moment, so client
 * connections kept alive outlive a provider. `withProvider` starts a fresh fake provider of the
 * `steps`-step run (same seed, so the same ids), runs `fn` against it and closes it.
 */
async function startFront() {
  let target
  const server = createServer((req, res) => {
    const headers = { ...req.headers }
    for (const hop of HOP_BY_HOP) delete headers[hop]
    const upstream = request(
      { host: '127.0.0.1', port: target.port, method: req.method, path: req.url, headers, agent: false },
      (answer) => {
        const kept = Object.entries(answer.headers).filter(([key]) => !HOP_BY_HOP.includes(key))
        res.writeHead(answer.statusCode, Object.fromEntries(kept))
        answer.pipe(res)
      },
    )
    upstream.on('error', (error) => res.destroy(error))
    req.pipe(upstream)
  })
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve))
  return {
    url: `http://127.0.0.1:${server.address().port}`,
    async withProvider(steps, fn) {
      const provider = await startFakeProvider({ reply: longRunScript(steps), seed: 'rerecord' })
      target = { port: Number(new URL(provider.url).port) }
      try {
        await fn()
      } finally {
        await provider.close()
      }
    },
    async close() {
      server.closeAllConnections()
      await new Promise((resolve) => server.close(resolve))
    },
  }
}

const HOP_BY_HOP = ['connection', 'keep-alive', 'transfer-encoding', 'proxy-connection', 'upgrade']
