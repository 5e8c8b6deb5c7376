import type { TapeMatchers } from '@agent-tape/runner-kit'
import type { SetupTapeDefine } from './setup-hooks.js'
import type { TapeTestAPI } from './tape-api.js'

export type { McpTransport, Tape, TapeMcpOptions, TapeState } from '@agent-tape/core'
export { tapeMcpTransport } from '@agent-tape/core'
export type { Pattern as ConfigPattern, TapeMatchers } from '@agent-tape/runner-kit'
export type { TapeRuntimeOptions } from './configure.js'
export { configureTape } from './configure.js'
export type { AgentTapeJestOptions } from './options.js'
export type { SetupTapeContext, SetupTapeDefine } from './setup-hooks.js'
export type { TapeContext, TapeDefine, TapeEach, TapeFn, TapeTestAPI } from './tape-api.js'

/** Jest's `beforeAll` or `afterAll`, plus `.tape` (see {@link beforeAll}). */
export type HookWithTape = ((fn: () => unknown, timeout?: number) => void) & { tape: SetupTapeDefine }

const hookOf = (name: 'beforeAll' | 'afterAll'): HookWithTape => {
  const global = () => (globalThis as unknown as Record<string, HookWithTape | undefined>)[name]
  const missing = () =>
    new Error(
      `[agent-tape] ${name}.tape is defined by @agent-tape/jest/setup: use the preset (preset: '@agent-tape/jest'), or list the setup file in setupFilesAfterEnv`,
    )
  const hook = (fn: () => unknown, timeout?: number) => {
    const base = global()
    if (!base) throw missing()
    base(fn, timeout)
  }
  return Object.assign(hook, {
    tape: (fn: Parameters<SetupTapeDefine>[0], timeout?: number) => {
      const base = global()
      if (!base?.tape) throw missing()
      base.tape(fn, timeout)
    },
  })
}

/**
 * Jest's `beforeAll` global, typed with `beforeAll.tape(fn)`: a setup tape (the global has it
 * too, for files that are not type-checked). The hook's body runs once before the tests of the
 * file or describe block, inside a tape of its own, recorded to and replayed from
 * `__cassettes__/<test file>/<describe>/…/beforeAll.jsonl`; an MCP client it connects keeps
 * working in each test's tape, whose own calls stay in the test's cassette.
 *
 * @example
 * import { afterAll, beforeAll, tapeMcpTransport } from '@agent-tape/jest'
 * const client = new Client({ name: 'agent', version: '1.0.0' })
 * beforeAll.tape(() => client.connect(tapeMcpTransport(new StdioClientTransport({ command: 'node', args: ['server.js'] }))))
 * afterAll(() => client.close())
 */
export const beforeAll: HookWithTape = hookOf('beforeAll')

/** Jest's `afterAll` global, typed with `afterAll.tape(fn)`: a setup tape run after the tests. */
export const afterAll: HookWithTape = hookOf('afterAll')

// `it.tape` and the matchers, on the globals of `@types/jest` and on `@jest/globals`' exports.
declare global {
  namespace jest {
    interface It {
      tape: TapeTestAPI
    }
    // biome-ignore lint/complexity/noBannedTypes: the type parameters @types/jest declares Matchers with
    interface Matchers<R, T = {}> extends TapeMatchers<R> {}
  }
}

declare module '@jest/types' {
  namespace Global {
    interface ItBase {
      tape: TapeTestAPI
    }
  }
}

declare module 'expect' {
  interface Matchers<R extends void | Promise<void>, T = unknown> extends TapeMatchers<R> {}
}
