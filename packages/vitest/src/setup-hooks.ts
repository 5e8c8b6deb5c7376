import { relative } from 'node:path'
import type { Tape } from '@agent-tape/core'
import { ConfigError } from '@agent-tape/core/runtime'
import type { SetupHook } from '@agent-tape/runner-kit/tape'
import { TestRunner, afterAll as vitestAfterAll, beforeAll as vitestBeforeAll } from 'vitest'
import { runtimeOptions } from './configure.js'
import { readConfig } from './fixture.js'
import './meta.js'
import { claimSetupTape } from './track-names.js'

/** What the body of a setup tape is given: its tape. */
export interface SetupTapeContext {
  tape: Tape
}

/** `beforeAll.tape(fn, timeout?)`: the hook's body, run inside a tape of its own. */
export type SetupTapeDefine = (fn: (context: SetupTapeContext) => unknown, timeout?: number) => void

/** Vitest's `beforeAll`, plus `beforeAll.tape`. */
export type BeforeAllWithTape = typeof vitestBeforeAll & { tape: SetupTapeDefine }
/** Vitest's `afterAll`, plus `afterAll.tape`. */
export type AfterAllWithTape = typeof vitestAfterAll & { tape: SetupTapeDefine }

/**
 * Defines a setup tape: a hook of the file or describe block it is called in, whose body runs
 * inside a tape with the cassette `__cassettes__/<test file>/<describe>/…/<hook>.jsonl`.
 */
function defineSetupTape(
  hook: SetupHook,
  base: (fn: () => unknown, timeout?: number) => void,
): SetupTapeDefine {
  return (fn, timeout) => {
    const collector = TestRunner.getCurrentSuite()
    const file = collector.file
    if (typeof fn !== 'function') {
      throw new ConfigError({
        what: `${hook}.tape in ${file.name} has no hook function`,
        why: `its first argument is ${typeof fn}`,
        fix: `Pass the body: ${hook}.tape(async () => { await client.connect(transport) })`,
      })
    }
    const describes = describesOf(collector.suite)
    claimSetupTape(file, hook, describes)
    file.meta.agentTapeSetup ??= { tapes: [], entries: [] }
    const setups = file.meta.agentTapeSetup
    setups.tapes.push([...describes, hook])
    // No parameters: Vitest reads a hook's first parameter as the fixtures it asks for.
    base(async () => {
      const config = readConfig(`${hook}.tape`)
      // Loaded by the first tape of the file, not by the setup file that every test file runs.
      const { runSetupTape, toPosix } = await import('@agent-tape/runner-kit/tape')
      await runSetupTape({
        runner: 'vitest',
        hook,
        describes,
        exec: config.exec,
        root: config.root,
        testFile: toPosix(relative(config.root, file.filepath)),
        config,
        runtime: runtimeOptions(),
        ...(timeout ? { timeoutMs: timeout } : {}),
        body: fn,
        report: (entry) => {
          setups.entries.push(entry)
        },
      })
    }, timeout)
  }
}

/** The names of the describe blocks from the outermost to `suite`, as the file is collected. */
function describesOf(suite: { name: string; suite?: unknown } | undefined): string[] {
  const names: string[] = []
  for (let s = suite; s; s = s.suite as typeof suite) names.unshift(s.name)
  return names
}

/**
 * Vitest's `beforeAll`, plus `beforeAll.tape(fn)`: a setup tape. Its body runs once before the
 * tests of the file or describe block, inside a tape of its own, recorded to and replayed from
 * `__cassettes__/<test file>/<describe>/…/beforeAll.jsonl`; an MCP client it connects keeps
 * working in each test's tape, whose own calls stay in the test's cassette.
 *
 * @example
 * import { beforeAll, afterAll, it, tapeMcpTransport } from '@agent-tape/vitest'
 * const client = new Client({ name: 'agent', version: '1.0.0' })
 * beforeAll.tape(() => client.connect(tapeMcpTransport(new StdioClientTransport({ command: 'node', args: ['server.js'] }))))
 * afterAll(() => client.close())
 */
export const beforeAll: BeforeAllWithTape = Object.assign(
  ((fn, timeout) => vitestBeforeAll(fn, timeout)) as typeof vitestBeforeAll,
  { tape: defineSetupTape('beforeAll', vitestBeforeAll) },
)

/** Vitest's `afterAll`, plus `afterAll.tape(fn)`: a setup tape run after the tests (see {@link beforeAll}). */
export const afterAll: AfterAllWithTape = Object.assign(
  ((fn, timeout) => vitestAfterAll(fn, timeout)) as typeof vitestAfterAll,
  { tape: defineSetupTape('afterAll', vitestAfterAll) },
)
