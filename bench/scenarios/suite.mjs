/**
 * Scenario 6: what the runner integrations cost a suite, under the real Vitest and the real Jest,
 * wall clock of the whole run (startup included, as a user sees it), in rotating rounds:
 * - 50 test files without any tape test, with the integration and without it: its cost per test
 *   file (its setup file runs before every file);
 * - 50 files × 4 tape tests, each replaying a 10-step tool loop on the openai SDK, next to the same
 *   tests with a hand-written `fetch` stub serving the same responses.
 * Each runner runs with its defaults (workers included), and without agent-tape's run summary, as
 * the stubs have none. An older build (`BENCH_SUITE_BEFORE=<packages dir>`) is measured beside the
 * current one in the same rounds. The load average is read before and after the rounds.
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
import { loadavg } from 'node:os'
import { dirname, join } from 'node:path'
import { parseCassette } from '@agent-tape/core'
import { extremes, median, rounds, summarize } from '../lib/stats.mjs'
import { longRunScript } from '../lib/traffic.mjs'

const FILES = 50
const TESTS_PER_FILE = 4
const STEPS = 10
const BIN = {
  vitest: new URL('../node_modules/vitest/vitest.mjs', import.meta.url).pathname,
  jest: new URL('../node_modules/jest/bin/jest.js', import.meta.url).pathname,
}
const TRAFFIC = new URL('../lib/traffic.mjs', import.meta.url).pathname
const IMPORT_CHILD = new URL('../lib/import-child.mjs', import.meta.url).pathname
// Another folder of built packages (an older build) may stand in for the workspace's; and one
// given as BENCH_SUITE_BEFORE is measured beside them, in the same rounds ("before" and "after"
// of a change, side by side on the same noisy machine).
const PACKAGES = process.env.BENCH_SUITE_PACKAGES ?? new URL('../../packages/', import.meta.url).pathname
const BEFORE = process.env.BENCH_SUITE_BEFORE
const INSTALLED = ['core', 'http', 'inspect', 'runner-kit', 'vitest', 'jest', 'cli']
/** The runner each package folder of the project belongs to, and the runner it runs. */
const LINKED = { vitest: '../node_modules/vitest', jest: '../node_modules/jest' }

/** Each variant of the project: the runner, whether agent-tape is in its config, the tests it runs. */
const VARIANTS = {
  plugin: { runner: 'vitest', agentTape: true, tests: 'plain' },
  plain: { runner: 'vitest', agentTape: false, tests: 'plain' },
  tape: { runner: 'vitest', agentTape: true, tests: 'tape' },
  stub: { runner: 'vitest', agentTape: false, tests: 'stub' },
  'jest-plugin': { runner: 'jest', agentTape: true, tests: 'plain' },
  'jest-plain': { runner: 'jest', agentTape: false, tests: 'plain' },
  'jest-tape': { runner: 'jest', agentTape: true, tests: 'tape' },
  'jest-stub': { runner: 'jest', agentTape: false, tests: 'stub' },
}

export async function suite({ provider, config }) {
  const root = new URL('../.tmp/suite/', import.meta.url).pathname
  rmSync(root, { recursive: true, force: true })
  installPackages(root, PACKAGES)
  writeProject(root)
  // The same project with the older packages: the same test files, and the cassettes the
  // current packages record (a format both read).
  const before = BEFORE && new URL('../.tmp/suite-before/', import.meta.url).pathname
  const record = { ...process.env, BENCH_MODEL_URL: provider.url, AGENT_TAPE_MODE: 'update' }
  provider.script.push(longRunScript(STEPS))
  await run(root, 'tape', record)
  await run(root, 'jest-tape', record)
  provider.script.pop()
  writeStubResponses(root)
  if (before) {
    rmSync(before, { recursive: true, force: true })
    mkdirSync(before, { recursive: true })
    for (const entry of readdirSync(root)) {
      if (entry !== 'node_modules') cpSync(join(root, entry), join(before, entry), { recursive: true })
    }
    installPackages(before, BEFORE)
  }
  const replay = { ...process.env, BENCH_MODEL_URL: provider.url, CI: 'true', AGENT_TAPE_MODE: 'replay' }
  const variant = (name) =>
    name.endsWith('-before') ? run(before, name.replace('-before', ''), replay) : run(root, name, replay)
  const withBefore = (names) => [
    ...names,
    ...(before ? names.filter((n) => !/(plain|stub)$/.test(n)).map((n) => `${n}-before`) : []),
  ]
  const connections = provider.connections
  const repeat = config.quick ? { warmup: 0, repeat: 1 } : { warmup: 1, repeat: 5 }
  const load = [loadavg()]
  const plain = await rounds(withBefore(['plugin', 'plain', 'jest-plugin', 'jest-plain']), repeat, variant)
  load.push(loadavg())
  const tapes = await rounds(withBefore(['tape', 'stub', 'jest-tape', 'jest-stub']), repeat, variant)
  load.push(loadavg())
  if (provider.connections !== connections) throw new Error('the replayed suite reached the network')
  const setupImport = importTimes(root, config.quick ? 3 : 20)
  return {
    files: FILES,
    tests: FILES * TESTS_PER_FILE,
    steps: STEPS,
    loadAverage: load.map((l) => l[0]),
    ...compare(plain, tapes, ''),
    setupImport,
    jest: compare(plain, tapes, 'jest-'),
    ...(before
      ? {
          before: {
            ...beforeAndAfter(plain, tapes, ''),
            setupImport: importTimes(before, config.quick ? 3 : 20),
            jest: beforeAndAfter(plain, tapes, 'jest-'),
          },
        }
      : {}),
  }
}

/** One runner's two comparisons, each round's own ratio, then their median. */
function compare(plain, tapes, prefix) {
  const [plugin, without, tape, stub] = ['plugin', 'plain', 'tape', 'stub'].map((v) => `${prefix}${v}`)
  const perFile = plain[plugin].map((t, i) => (t - plain[without][i]) / FILES)
  const plainRatios = plain[plugin].map((t, i) => t / plain[without][i])
  const ratios = tapes[tape].map((t, i) => t / tapes[stub][i])
  return {
    withoutTapes: {
      summary: { plugin: summarize(plain[plugin]), plain: summarize(plain[without]) },
      ratio: summarize(plainRatios),
      medianRatio: median(plainRatios),
      perFileMs: median(perFile),
    },
    summary: { tape: summarize(tapes[tape]), stub: summarize(tapes[stub]) },
    ratio: summarize(ratios),
    medianRatio: median(ratios),
  }
}

/** The older packages next to the current ones: per-file cost and tape ratio, each round's own. */
function beforeAndAfter(plain, tapes, prefix) {
  const [plugin, without, tape, stub] = ['plugin', 'plain', 'tape', 'stub'].map((v) => `${prefix}${v}`)
  const old = (name) => `${name}-before`
  return {
    withoutTapes: {
      summary: summarize(plain[old(plugin)]),
      perFileMs: median(plain[old(plugin)].map((t, i) => (t - plain[without][i]) / FILES)),
      medianRatio: median(plain[old(plugin)].map((t, i) => t / plain[without][i])),
    },
    summary: summarize(tapes[old(tape)]),
    medianRatio: median(tapes[old(tape)].map((t, i) => t / tapes[stub][i])),
    afterVsBefore: {
      withoutTapes: median(plain[plugin].map((t, i) => t / plain[old(plugin)][i])),
      tapes: median(tapes[tape].map((t, i) => t / tapes[old(tape)][i])),
    },
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

/** Runs one variant's whole suite (asynchronously: the fake provider answers from this process). */
async function run(root, name, env) {
  const { runner, tests } = VARIANTS[name]
  const cwd = runner === 'jest' ? join(root, 'jest') : root
  const args =
    runner === 'jest'
      ? ['--config', `jest.${name}.config.cjs`]
      : ['run', '--config', `vitest.${name}.config.mjs`]
  const started = performance.now()
  const child = spawn(process.execPath, [BIN[runner], ...args], { cwd, env })
  const result = { output: '' }
  child.stdout.on('data', (chunk) => {
    result.output += chunk
  })
  child.stderr.on('data', (chunk) => {
    result.output += chunk
  })
  result.status = await new Promise((resolve) => child.on('close', resolve))
  const ms = performance.now() - started
  if (result.status !== 0) throw new Error(`${runner} (${name}) failed:\n${result.output.slice(-4000)}`)
  const all = FILES * TESTS_PER_FILE
  const passed = runner === 'jest' ? `Tests:       ${all} passed, ${all} total` : `${all} passed`
  if (!result.output.includes(passed)) {
    throw new Error(`${runner} (${name}) did not run every ${tests} test:\n${result.output.slice(-2000)}`)
  }
  return ms
}

function writeProject(root) {
  for (const [name, { runner, agentTape, tests }] of Object.entries(VARIANTS)) {
    if (runner === 'vitest') writeVitestConfig(root, name, agentTape, tests)
    else writeJestConfig(join(root, 'jest'), name, agentTape, tests)
  }
  const tests = Array.from({ length: TESTS_PER_FILE }, (_, t) => t)
  const expected = `Looked up ${STEPS - 1} records.`
  // The same agent for both runners: Vitest's files import it as an ES module, Jest's require it.
  const agent = (importLine) => `${importLine}
const client = (fetch) =>
  new OpenAI({ apiKey: 'sk-test', baseURL: process.env.BENCH_MODEL_URL + '/v1', maxRetries: 0, ...(fetch ? { fetch } : {}) })
`
  const tapeTests = tests
    .map(
      (t) => `it.tape('run-${t}', async ({ tape }) => {
  const tools = { call: (name, args, fn) => tape.tool(name, args, fn) }
  const { text } = await runLongAgent(client(), tools, ${STEPS})
  expect(text).toBe('${expected}')
})`,
    )
    .join('\n')
  const stubTests = tests
    .map(
      (t) => `it('run-${t}', async () => {
  let next = 0
  const fetch = async () => new Response(responses[next++], { headers: { 'content-type': 'application/json' } })
  const { text } = await runLongAgent(client(fetch), tools, ${STEPS})
  expect(text).toBe('${expected}')
})`,
    )
    .join('\n')
  const plainTests = (f) =>
    tests.map((t) => `it('adds ${t}', () => {\n  expect(${f} + ${t}).toBe(${f + t})\n})`).join('\n')
  const esm = `import OpenAI from 'openai'\nimport { runLongAgent } from ${JSON.stringify(TRAFFIC)}`
  const cjs = `const OpenAI = require('openai').default\nconst { runLongAgent } = require('../traffic.cjs')`
  for (const folder of ['plain', 'tape', 'stub']) {
    mkdirSync(join(root, folder), { recursive: true })
    mkdirSync(join(root, 'jest', folder), { recursive: true })
  }
  for (let f = 0; f < FILES; f++) {
    writeFileSync(
      join(root, 'plain', `unit-${f}.test.mjs`),
      `import { expect, it } from 'vitest'\n${plainTests(f)}\n`,
    )
    writeFileSync(join(root, 'jest', 'plain', `unit-${f}.test.cjs`), `${plainTests(f)}\n`)
    writeFileSync(
      join(root, 'tape', `agent-${f}.test.mjs`),
      `import { expect, it } from '@agent-tape/vitest'\n${agent(esm)}\n${tapeTests}\n`,
    )
    writeFileSync(join(root, 'jest', 'tape', `agent-${f}.test.cjs`), `${agent(cjs)}\n${tapeTests}\n`)
    const stubHead = (read) =>
      `${read}\nconst responses = JSON.parse(readFileSync(join(__dirname_, 'responses.json'), 'utf8'))\nconst tools = { call: (_name, _args, fn) => fn() }\n`
    writeFileSync(
      join(root, 'stub', `agent-${f}.test.mjs`),
      `import { readFileSync } from 'node:fs'\nimport { dirname, join } from 'node:path'\nimport { fileURLToPath } from 'node:url'\nimport { expect, it } from 'vitest'\n${agent(esm)}${stubHead('const __dirname_ = dirname(fileURLToPath(import.meta.url))')}\n${stubTests}\n`,
    )
    writeFileSync(
      join(root, 'jest', 'stub', `agent-${f}.test.cjs`),
      `const { readFileSync } = require('node:fs')\nconst { join } = require('node:path')\n${agent(cjs)}${stubHead('const __dirname_ = __dirname')}\n${stubTests}\n`,
    )
  }
  // The agent loop as CommonJS for Jest, from the very source the Vitest files import.
  writeFileSync(
    join(root, 'jest', 'traffic.cjs'),
    `${readFileSync(TRAFFIC, 'utf8').replace(/^export /gm, '')}\nmodule.exports = { runLongAgent }\n`,
  )
}

function writeVitestConfig(root, name, agentTape, tests) {
  writeFileSync(
    join(root, `vitest.${name}.config.mjs`),
    `${agentTape ? "import { agentTape } from '@agent-tape/vitest/plugin'\n" : ''}import { defineConfig } from 'vitest/config'
export default defineConfig({
${agentTape ? '  plugins: [agentTape({ modelEndpoints: [process.env.BENCH_MODEL_URL], summary: false })],\n' : ''}  // A generous timeout: on a loaded machine a recording can take longer than the default 5 s.
  test: { include: ['${tests}/*.test.mjs'], testTimeout: 120_000 },
})
`,
  )
}

function writeJestConfig(dir, name, agentTape, tests) {
  mkdirSync(dir, { recursive: true })
  // Jest's own reporter only: the preset's run summary is left out, as Vitest's is (summary: false).
  writeFileSync(
    join(dir, `jest.${name}.config.cjs`),
    `module.exports = {
  rootDir: __dirname,
${agentTape ? "  preset: '@agent-tape/jest',\n  testEnvironmentOptions: { agentTape: { modelEndpoints: [process.env.BENCH_MODEL_URL] } },\n" : "  testEnvironment: 'node',\n"}  reporters: ['default'],
  testMatch: ['<rootDir>/${tests}/*.test.cjs'],
  testTimeout: 120000,
}
`,
  )
}

/**
 * Installs the built packages in the project's own node_modules, as a package manager would
 * (copies, their dependencies beside them): the runners then load them as they load a user's,
 * with Node's loader (Vitest) or Jest's own, rather than transforming them as they do the
 * workspace's linked sources. The runners themselves are linked from the bench's.
 */
function installPackages(root, packages) {
  for (const name of INSTALLED) {
    const from = join(packages, name)
    // An older build compared against may predate a package (inspect).
    if (!existsSync(join(from, 'package.json'))) continue
    const to = join(root, 'node_modules', '@agent-tape', name)
    mkdirSync(to, { recursive: true })
    for (const file of ['package.json', 'jest-preset.cjs']) {
      if (existsSync(join(from, file))) cpSync(join(from, file), join(to, file))
    }
    cpSync(join(from, 'dist'), join(to, 'dist'), { recursive: true })
    const manifest = JSON.parse(readFileSync(join(from, 'package.json'), 'utf8'))
    for (const dep of Object.keys(manifest.dependencies ?? {})) {
      if (dep.startsWith('@agent-tape/')) continue
      link(join(root, 'node_modules', dep), join(from, 'node_modules', dep))
    }
  }
  for (const [name, target] of Object.entries(LINKED))
    link(join(root, 'node_modules', name), new URL(target, import.meta.url).pathname)
  link(join(root, 'node_modules', 'openai'), new URL('../node_modules/openai', import.meta.url).pathname)
}

function link(at, target) {
  mkdirSync(dirname(at), { recursive: true })
  rmSync(at, { recursive: true, force: true })
  symlinkSync(realpathSync(target), at)
}

/** The stubs serve the very responses the tapes recorded. */
function writeStubResponses(root) {
  const dir = join(root, 'tape', '__cassettes__', 'agent-0.test.mjs')
  const file = join(dir, readdirSync(dir)[0])
  const cassette = parseCassette(readFileSync(file, 'utf8'), file)
  const bodies = cassette.decisions
    .filter((d) => d.kind === 'llm')
    .map((d) => JSON.stringify(d.out.body.json))
  writeFileSync(join(root, 'stub', 'responses.json'), JSON.stringify(bodies))
  writeFileSync(join(root, 'jest', 'stub', 'responses.json'), JSON.stringify(bodies))
}
