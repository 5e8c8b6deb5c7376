import { execFileSync } from 'node:child_process'
import { existsSync, readFileSync } from 'node:fs'
import { dirname, join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { expect, it } from 'vitest'

const CHILD = fileURLToPath(new URL('./setup-modules-child.mjs', import.meta.url))
const PACKAGES = fileURLToPath(new URL('../../packages/', import.meta.url))

/**
 * Every source module a runner's setup file loads, before each test file, whether the file has a
 * tape or not: what it costs a suite that adds agent-tape (decision 0035). Adding one to this list
 * is a decision, to be measured with the bench's suite scenario (`pnpm bench --only suite`).
 */
const SETUP_MODULES = [
  // The tape context: the async context boundaries find a test's tape by, and the run's mode.
  'core/src/tape-context.ts',
  // The stand-ins of fetch, node:http(s) and http2.connect, kept by modules as they load.
  'http/src/boundary.ts',
  'http/src/stand-ins.ts',
  // Those of node:http, https, http2 and worker_threads, put in when the test file loads them.
  'http/src/builtin-loads.ts',
  // A fetch that may be MCP, refused outside every tape in a run that replays (decision 0021).
  'http/src/mcp-shape.ts',
  // What decides a request, loaded on first need.
  'http/src/request-handling.ts',
  // The MSW mode (`interception: 'msw'`).
  'http/src/msw-interception.ts',
  // The placeholder keys the plugin planned, set before the test file builds its SDK clients.
  'http/src/replay-key-plan.ts',
  // The config's HTTP options, its patterns compiled.
  'runner-kit/src/http-options.ts',
  'runner-kit/src/patterns.ts',
  // The tape matchers, linked to implementations the first tape loads.
  'runner-kit/src/matcher-link.ts',
  'runner-kit/src/not-a-tape.ts',
  // Where a setup file's own options (configureTape) are kept.
  'runner-kit/src/runtime-options.ts',
  // The setup file itself, and the matchers it registers.
  'vitest/src/setup.ts',
  'vitest/src/matchers.ts',
]

/** What only the gateway's own process and thread run (`gateway/main`, `gateway/worker`). */
const GATEWAY_ONLY = [
  'http/src/gateway/server.ts',
  'http/src/gateway/run-gateway.ts',
  'http/src/gateway/run-ca.ts',
  'http/src/gateway/client-program.ts',
]

interface ChildRun {
  imports: string[]
  outside: string
  recorded: string
  replayed: string
  state: string
  /** The files of agent-tape each step loaded, as URLs. */
  steps: Record<'setup' | 'outside' | 'open' | 'tape', string[]>
}

const run = JSON.parse(
  execFileSync(process.execPath, [CHILD], { encoding: 'utf8', timeout: 120_000 }),
) as ChildRun

/** The source modules bundled into the files `urls` names, from each file's source map. */
function sourceModules(urls: readonly string[]): string[] {
  const modules = urls.flatMap((url) => {
    const file = fileURLToPath(url)
    if (!existsSync(`${file}.map`)) return []
    const map = JSON.parse(readFileSync(`${file}.map`, 'utf8')) as { sources: string[] }
    return map.sources.map((source) => resolve(dirname(file), source).slice(PACKAGES.length))
  })
  return [...new Set(modules)].sort()
}

it("loads exactly the named modules with a runner's setup file, in a handful of files", () => {
  expect(run.imports).toEqual([
    '@agent-tape/core/context',
    '@agent-tape/http/install',
    '@agent-tape/runner-kit/setup',
  ])
  expect(sourceModules(run.steps.setup)).toEqual(
    [...SETUP_MODULES].filter((m) => !m.startsWith('vitest/')).sort(),
  )
  expect(sourceModules([new URL(`file://${join(PACKAGES, 'vitest/dist/setup.js')}`).href])).toEqual(
    SETUP_MODULES.filter((m) => m.startsWith('vitest/')).sort(),
  )
  // Each package's entry and the one chunk behind it.
  expect(run.steps.setup.length).toBeLessThanOrEqual(6)
})

it("Jest's setup file requires the same light entries, and its own modules need nothing more", () => {
  // `@agent-tape/http/install` comes with the runner kit's setup entry (installRunnerBoundary),
  // which the first test counts with everything it loads.
  // What a file requires as it loads: its top-level requires (a lazy one sits inside a function).
  const required = (file: string) =>
    [
      ...readFileSync(join(PACKAGES, 'jest/dist/cjs', file), 'utf8').matchAll(
        /^(?:(?:let|const|var) [\w$]+ = )?require\("([^"]+)"\)/gm,
      ),
    ].map((m) => m[1])
  const setup = required('setup.js')
  const own = setup.filter((specifier) => specifier?.startsWith('./'))
  const all = [...setup, ...own.flatMap((chunk) => required(chunk!))]
  expect([...new Set(all.filter((s) => !s?.startsWith('./') && !s?.startsWith('node:')))].sort()).toEqual([
    '@agent-tape/core/context',
    '@agent-tape/runner-kit/setup',
  ])
})

it('a request made outside any tape while none runs passes through, loading nothing', () => {
  expect(run.outside).toBe('from the server')
  expect(run.steps.outside).toEqual([])
})

it('the first tape loads what serves it, and the tape records and replays', () => {
  expect(sourceModules(run.steps.open)).toEqual(
    expect.arrayContaining([
      'http/src/handle-request.ts',
      'http/src/apply-boundary.ts',
      'core/src/open-tape.ts',
    ]),
  )
  // The gateway's server runs in a process or thread of its own, which loads it by its entry: a
  // tape's test process never does (a chunk of what only those entries reach).
  const loaded = sourceModules([...run.steps.open, ...run.steps.tape])
  expect(loaded).toContain('http/src/gateway/gateway-thread.ts')
  expect(loaded.filter((m) => GATEWAY_ONLY.includes(m))).toEqual([])
  expect(run.recorded).toBe('from the server')
  // Replayed after the server closed: the answer came from the tape.
  expect(run.replayed).toBe('from the server')
  expect(run.state).toBe('clean')
})
