import type { TapeMatchers } from '@agent-tape/runner-kit'
import type { TapeTestAPI } from './tape-api.js'

export type { McpTransport, Tape, TapeMcpOptions, TapeState } from '@agent-tape/core'
export { tapeMcpTransport } from '@agent-tape/core'
export type { Pattern as ConfigPattern, TapeMatchers } from '@agent-tape/runner-kit'
export type { TapeRuntimeOptions } from './configure.js'
export { configureTape } from './configure.js'
export type { AgentTapeJestOptions } from './options.js'
export type { TapeContext, TapeDefine, TapeEach, TapeFn, TapeTestAPI } from './tape-api.js'

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
