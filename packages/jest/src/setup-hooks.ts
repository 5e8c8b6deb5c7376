import type { Tape } from '@agent-tape/core/context'
import type { SetupHook } from '@agent-tape/runner-kit/tape'
import type { TapeBridge } from './bridge.js'
import { runtimeOptions } from './configure.js'
import { runtimeErrors } from './load-lazily.js'
import { registryOf } from './tape-api.js'

/** What the body of a setup tape is given: its tape. */
export interface SetupTapeContext {
  tape: Tape
}

/** `beforeAll.tape(fn, timeout?)`: the hook's body, run inside a tape of its own. */
export type SetupTapeDefine = (fn: (context: SetupTapeContext) => unknown, timeout?: number) => void

type JestHook = (fn: () => unknown, timeout?: number) => void

/**
 * `beforeAll.tape` and `afterAll.tape` on Jest's hooks, for the test file the bridge describes:
 * the hook's body runs inside a tape with the cassette
 * `__cassettes__/<test file>/<describe>/…/<hook>.jsonl`, beside the tests' (decision 0039).
 */
export function createSetupTape(hook: SetupHook, base: JestHook, bridge: TapeBridge): SetupTapeDefine {
  return (fn, timeout) => {
    if (typeof fn !== 'function') {
      throw new (runtimeErrors().ConfigError)({
        what: `${hook}.tape in ${bridge.testFile} has no hook function`,
        why: `its first argument is ${typeof fn}`,
        fix: `Pass the body: ${hook}.tape(async () => { await client.connect(transport) })`,
      })
    }
    bridge.lastHookScope = undefined
    let describes: readonly string[] = []
    base(async () => {
      // Loaded by the first tape of the file, not by the setup file that every test file runs.
      const { runSetupTape } = await import('@agent-tape/runner-kit/tape')
      await runSetupTape({
        runner: 'jest',
        hook,
        describes,
        exec: bridge.exec,
        testFile: bridge.testFile,
        root: bridge.root,
        config: bridge.config,
        runtime: runtimeOptions(),
        env: bridge.env,
        timeoutMs: timeout ?? bridge.testTimeout,
        body: fn,
        report: (entry) => bridge.entries.push(entry),
      })
    }, timeout)
    // Jest's `add_hook` event named the block the hook was added to.
    describes = bridge.lastHookScope ?? []
    registryOf(bridge).claimSetup(bridge.testFile, hook, describes)
    bridge.tapes.push([...describes, hook])
  }
}
