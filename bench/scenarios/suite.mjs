/**
 * Scenario 6: 100 tape tests, each replaying a 20-step run, under the real Vitest, next to the
 * same tests with a hand-written `fetch` stub serving the same responses. Wall clock of the
 * whole `vitest run`, startup included, as a user would see it.
 */
import { spawn } from 'node:child_process'
import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { parseCassette } from '@agent-tape/core'
import { median, rounds, summarize } from '../lib/stats.mjs'
import { longRunScript } from '../lib/traffic.mjs'

const FILES = 10
const TESTS_PER_FILE = 10
const STEPS = 20
const VITEST = new URL('../node_modules/vitest/vitest.mjs', import.meta.url).pathname
const TRAFFIC = new URL('../lib/traffic.mjs', import.meta.url).pathname

export async function suite({ provider, config }) {
  const root = new URL('../.tmp/suite/', import.meta.url).pathname
  rmSync(root, { recursive: true, force: true })
  writeProject(root)
  const env = { ...process.env, BENCH_MODEL_URL: provider.url, AGENT_TAPE_MODE: 'update' }
  provider.script.push(longRunScript(STEPS))
  await vitest(root, 'vitest.tape.config.mjs', env) // records the 100 cassettes
  provider.script.pop()
  writeStubFixture(root)
  const replayEnv = { ...process.env, BENCH_MODEL_URL: provider.url, CI: 'true', AGENT_TAPE_MODE: 'replay' }
  const before = provider.connections
  const repeat = config.quick ? { warmup: 0, repeat: 1 } : { warmup: 1, repeat: 5 }
  const times = await rounds(['tape', 'stub'], repeat, async (variant) =>
    vitest(root, `vitest.${variant}.config.mjs`, replayEnv),
  )
  if (provider.connections !== before) throw new Error('the replayed suite reached the network')
  const ratios = times.tape.map((t, i) => t / times.stub[i])
  return {
    tests: FILES * TESTS_PER_FILE,
    steps: STEPS,
    summary: { tape: summarize(times.tape), stub: summarize(times.stub) },
    ratio: summarize(ratios),
    medianRatio: median(ratios),
  }
}

/** Runs one `vitest run` (asynchronously: the fake provider answers from this process). */
async function vitest(root, configFile, env) {
  const started = performance.now()
  const child = spawn(process.execPath, [VITEST, 'run', '--config', configFile], { cwd: root, env })
  const result = { stdout: '', stderr: '' }
  child.stdout.on('data', (chunk) => {
    result.stdout += chunk
  })
  child.stderr.on('data', (chunk) => {
    result.stderr += chunk
  })
  result.status = await new Promise((resolve) => child.on('close', resolve))
  const ms = performance.now() - started
  if (result.status !== 0) {
    throw new Error(
      `vitest (${configFile}) failed:\n${result.stdout.slice(-3000)}\n${result.stderr.slice(-3000)}`,
    )
  }
  if (!result.stdout.includes(`${FILES * TESTS_PER_FILE} passed`)) {
    throw new Error(`vitest (${configFile}) did not run every test:\n${result.stdout.slice(-2000)}`)
  }
  return ms
}

function writeProject(root) {
  mkdirSync(join(root, 'tape'), { recursive: true })
  mkdirSync(join(root, 'stub'), { recursive: true })
  writeFileSync(
    join(root, 'vitest.tape.config.mjs'),
    `import { agentTape } from '@agent-tape/vitest/plugin'
import { defineConfig } from 'vitest/config'
export default defineConfig({
  plugins: [agentTape({ modelEndpoints: [process.env.BENCH_MODEL_URL], summary: false })],
  test: { include: ['tape/*.test.mjs'] },
})
`,
  )
  writeFileSync(
    join(root, 'vitest.stub.config.mjs'),
    `import { defineConfig } from 'vitest/config'
export default defineConfig({ test: { include: ['stub/*.test.mjs'] } })
`,
  )
  const agent = `import OpenAI from 'openai'
import { runLongAgent } from ${JSON.stringify(TRAFFIC)}
const client = (fetch) =>
  new OpenAI({ apiKey: 'sk-test', baseURL: process.env.BENCH_MODEL_URL + '/v1', maxRetries: 0, ...(fetch ? { fetch } : {}) })
`
  for (let f = 0; f < FILES; f++) {
    const tests = Array.from({ length: TESTS_PER_FILE }, (_, t) => t)
    writeFileSync(
      join(root, 'tape', `agent-${f}.test.mjs`),
      `import { expect, it } from '@agent-tape/vitest'
${agent}
${tests
  .map(
    (t) => `it.tape('run-${t}', async ({ tape }) => {
  const tools = { call: (name, args, fn) => tape.tool(name, args, fn) }
  const { text } = await runLongAgent(client(), tools, ${STEPS})
  expect(text).toBe('Looked up ${STEPS - 1} records.')
})`,
  )
  .join('\n')}
`,
    )
    writeFileSync(
      join(root, 'stub', `agent-${f}.test.mjs`),
      `import { readFileSync } from 'node:fs'
import { expect, it } from 'vitest'
${agent}
const responses = JSON.parse(readFileSync(new URL('./responses.json', import.meta.url), 'utf8'))
const tools = { call: (_name, _args, fn) => fn() }
${tests
  .map(
    (t) => `it('run-${t}', async () => {
  let next = 0
  const fetch = async () => new Response(responses[next++], { headers: { 'content-type': 'application/json' } })
  const { text } = await runLongAgent(client(fetch), tools, ${STEPS})
  expect(text).toBe('Looked up ${STEPS - 1} records.')
})`,
  )
  .join('\n')}
`,
    )
  }
}

/** The stub serves the very responses the tapes recorded. */
function writeStubFixture(root) {
  const dir = join(root, 'tape', '__cassettes__', 'agent-0.test.mjs')
  const file = join(dir, readdirSync(dir)[0])
  const cassette = parseCassette(readFileSync(file, 'utf8'), file)
  const bodies = cassette.decisions
    .filter((d) => d.kind === 'llm')
    .map((d) => JSON.stringify(d.out.body.json))
  writeFileSync(join(root, 'stub', 'responses.json'), JSON.stringify(bodies))
}
