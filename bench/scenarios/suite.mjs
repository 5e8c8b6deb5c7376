/**
 * Scenario 6: what the Vitest plugin costs a suite, under the real Vitest, wall clock of the
 * whole `vitest run` (startup included, as a user sees it), in rounds:
 * - 50 test files without any tape test, with the plugin and without it: the plugin's cost per
 *   test file (its setup file runs before every file);
 * - 50 files × 4 tape tests, each replaying a 20-step run, next to the same tests with a
 *   hand-written `fetch` stub serving the same responses.
 * And, in fresh `node` processes, the time to import what the plugin's setup file imports.
 */
import { execFileSync, spawn } from 'node:child_process'
import {
  cpSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  realpathSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs'
import { dirname, join } from 'node:path'
import { parseCassette } from '@agent-tape/core'
import { extremes, median, rounds, summarize } from '../lib/stats.mjs'
import { longRunScript } from '../lib/traffic.mjs'

const FILES = 50
const TESTS_PER_FILE = 4
const STEPS = 10
const VITEST = new URL('../node_modules/vitest/vitest.mjs', import.meta.url).pathname
const TRAFFIC = new URL('../lib/traffic.mjs', import.meta.url).pathname
const IMPORT_CHILD = new URL('../lib/import-child.mjs', import.meta.url).pathname
// Another folder of built packages (an older build) may stand in for the workspace's; and one
// given as BENCH_SUITE_BEFORE is measured beside them, in the same rounds ("before" and "after"
// of a change, side by side on the same noisy machine).
const PACKAGES = process.env.BENCH_SUITE_PACKAGES ?? new URL('../../packages/', import.meta.url).pathname
const BEFORE = process.env.BENCH_SUITE_BEFORE
const INSTALLED = ['core', 'http', 'inspect', 'runner-kit', 'vitest']

export async function suite({ provider, config }) {
  const root = new URL('../.tmp/suite/', import.meta.url).pathname
  rmSync(root, { recursive: true, force: true })
  installPackages(root, PACKAGES)
  writeProject(root)
  // The same project with the older packages: the same test files, and the cassettes the
  // current packages record (a format both read).
  const before = BEFORE && new URL('../.tmp/suite-before/', import.meta.url).pathname
  const env = { ...process.env, BENCH_MODEL_URL: provider.url, AGENT_TAPE_MODE: 'update' }
  provider.script.push(longRunScript(STEPS))
  await vitest(root, 'tape', env) // records the cassettes
  provider.script.pop()
  writeStubFixture(root)
  if (before) {
    rmSync(before, { recursive: true, force: true })
    mkdirSync(before, { recursive: true })
    for (const entry of readdirSync(root)) {
      if (entry !== 'node_modules') cpSync(join(root, entry), join(before, entry), { recursive: true })
    }
    installPackages(before, BEFORE)
  }
  const run = (variant) =>
    variant.endsWith('-before')
      ? vitest(before, variant.replace('-before', ''), replayEnv)
      : vitest(root, variant, replayEnv)
  const replayEnv = { ...process.env, BENCH_MODEL_URL: provider.url, CI: 'true', AGENT_TAPE_MODE: 'replay' }
  const connections = provider.connections
  const repeat = config.quick ? { warmup: 0, repeat: 1 } : { warmup: 1, repeat: 5 }
  const plain = await rounds(['plugin', 'plain', ...(before ? ['plugin-before'] : [])], repeat, run)
  const tapes = await rounds(['tape', 'stub', ...(before ? ['tape-before'] : [])], repeat, run)
  if (provider.connections !== connections) throw new Error('the replayed suite reached the network')
  const setupImport = importTimes(root, config.quick ? 3 : 20)
  const plainRatios = plain.plugin.map((t, i) => t / plain.plain[i])
  const perFile = plain.plugin.map((t, i) => (t - plain.plain[i]) / FILES)
  const ratios = tapes.tape.map((t, i) => t / tapes.stub[i])
  return {
    files: FILES,
    tests: FILES * TESTS_PER_FILE,
    steps: STEPS,
    withoutTapes: {
      summary: { plugin: summarize(plain.plugin), plain: summarize(plain.plain) },
      ratio: summarize(plainRatios),
      medianRatio: median(plainRatios),
      perFileMs: median(perFile),
    },
    summary: { tape: summarize(tapes.tape), stub: summarize(tapes.stub) },
    ratio: summarize(ratios),
    medianRatio: median(ratios),
    setupImport,
    ...(before ? { before: beforeAndAfter(plain, tapes, importTimes(before, config.quick ? 3 : 20)) } : {}),
  }
}

/** The older packages next to the current ones: per-file cost and tape ratio, each round's own. */
function beforeAndAfter(plain, tapes, setupImport) {
  const perFile = plain['plugin-before'].map((t, i) => (t - plain.plain[i]) / FILES)
  const ratios = tapes['tape-before'].map((t, i) => t / tapes.stub[i])
  const pluginVsBefore = plain.plugin.map((t, i) => t / plain['plugin-before'][i])
  const tapeVsBefore = tapes.tape.map((t, i) => t / tapes['tape-before'][i])
  return {
    withoutTapes: {
      summary: summarize(plain['plugin-before']),
      perFileMs: median(perFile),
      medianRatio: median(plain['plugin-before'].map((t, i) => t / plain.plain[i])),
    },
    summary: summarize(tapes['tape-before']),
    medianRatio: median(ratios),
    afterVsBefore: { withoutTapes: median(pluginVsBefore), tapes: median(tapeVsBefore) },
    setupImport,
  }
}

/**
 * Imports, each time in a fresh `node` process, `vitest` and then the modules the plugin's setup
 * file imports (its own code needs Vitest's worker state, which only a Vitest worker has).
 */
function importTimes(root, times) {
  // Fresh processes on a shared machine: min, median and max of each, so a loaded moment shows.
  const setup = join(root, 'node_modules', '@agent-tape', 'vitest', 'dist', 'setup.js')
  const imports = [
    ...readFileSync(setup, 'utf8').matchAll(/^import\s+(?:[^'"]*?\s+from\s+)?['"]([^'"]+)['"]/gm),
  ]
    .map((m) => m[1])
    .filter((s) => s !== 'vitest')
    .map((s) => `import ${JSON.stringify(s.startsWith('.') ? new URL(s, `file://${setup}`).href : s)}\n`)
  const entry = join(root, 'setup-imports.mjs')
  writeFileSync(entry, imports.join(''))
  const child = (args) =>
    JSON.parse(
      execFileSync(process.execPath, [IMPORT_CHILD, entry, ...args], { cwd: root, encoding: 'utf8' }),
    )
  const samples = { vitest: [], setup: [] }
  for (let i = 0; i < times; i++) {
    const { vitest, setup } = child([])
    samples.vitest.push(vitest)
    samples.setup.push(setup)
  }
  return {
    vitest: { ...summarize(samples.vitest), ...extremes(samples.vitest) },
    setup: { ...summarize(samples.setup), ...extremes(samples.setup) },
    modules: child(['--count']).modules,
  }
}

const CONFIGS = {
  plugin: { plugin: true, include: 'plain' },
  plain: { plugin: false, include: 'plain' },
  tape: { plugin: true, include: 'tape' },
  stub: { plugin: false, include: 'stub' },
}

/** Runs one `vitest run` (asynchronously: the fake provider answers from this process). */
async function vitest(root, variant, env) {
  const configFile = `vitest.${variant}.config.mjs`
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
  for (const [variant, { plugin, include }] of Object.entries(CONFIGS)) {
    mkdirSync(join(root, include), { recursive: true })
    writeFileSync(
      join(root, `vitest.${variant}.config.mjs`),
      `${plugin ? "import { agentTape } from '@agent-tape/vitest/plugin'\n" : ''}import { defineConfig } from 'vitest/config'
export default defineConfig({
${plugin ? '  plugins: [agentTape({ modelEndpoints: [process.env.BENCH_MODEL_URL], summary: false })],\n' : ''}  // A generous timeout: on a loaded machine a recording can take longer than the default 5 s.
  test: { include: ['${include}/*.test.mjs'], testTimeout: 120_000 },
})
`,
    )
  }
  const agent = `import OpenAI from 'openai'
import { runLongAgent } from ${JSON.stringify(TRAFFIC)}
const client = (fetch) =>
  new OpenAI({ apiKey: 'sk-test', baseURL: process.env.BENCH_MODEL_URL + '/v1', maxRetries: 0, ...(fetch ? { fetch } : {}) })
`
  const tests = Array.from({ length: TESTS_PER_FILE }, (_, t) => t)
  for (let f = 0; f < FILES; f++) {
    writeFileSync(
      join(root, 'plain', `unit-${f}.test.mjs`),
      `import { expect, it } from 'vitest'
${tests.map((t) => `it('adds ${t}', () => {\n  expect(${f} + ${t}).toBe(${f + t})\n})`).join('\n')}
`,
    )
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

/**
 * Installs the built packages in the project's own node_modules, as a package manager would
 * (copies, their dependencies beside them): Vitest then loads them as it loads a user's, with
 * Node's loader, rather than transforming them as it does the workspace's linked sources.
 */
function installPackages(root, packages) {
  for (const name of INSTALLED) {
    const from = join(packages, name)
    // An older build compared against may predate a package (inspect).
    if (!existsSync(join(from, 'package.json'))) continue
    const to = join(root, 'node_modules', '@agent-tape', name)
    mkdirSync(to, { recursive: true })
    cpSync(join(from, 'package.json'), join(to, 'package.json'))
    cpSync(join(from, 'dist'), join(to, 'dist'), { recursive: true })
    const manifest = JSON.parse(readFileSync(join(from, 'package.json'), 'utf8'))
    for (const dep of Object.keys(manifest.dependencies ?? {})) {
      if (dep.startsWith('@agent-tape/')) continue
      const link = join(root, 'node_modules', dep)
      mkdirSync(dirname(link), { recursive: true })
      rmSync(link, { recursive: true, force: true })
      symlinkSync(realpathSync(join(from, 'node_modules', dep)), link)
    }
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
