import { TAPE_MATCHERS, type TapeMatchers } from '@agent-tape/runner-kit/setup'
import type { MatcherResult as ExpectationResult, MatcherState } from 'vitest'

declare module 'vitest' {
  // biome-ignore lint/suspicious/noExplicitAny: the shape Vitest declares Matchers with
  interface Matchers<T = any> extends TapeMatchers<T> {}
}

/** The tape matchers for Vitest's `expect.extend`, from the runner kit's. */
export const tapeMatchers = {
  toReplayCleanly(this: MatcherState, received: unknown): ExpectationResult {
    return TAPE_MATCHERS.toReplayCleanly(this.isNot, received)
  },
  toHaveDecisions(this: MatcherState, received: unknown, count: number, kind?: string): ExpectationResult {
    return TAPE_MATCHERS.toHaveDecisions(this.isNot, received, count, kind)
  },
  toHaveCalledTool(this: MatcherState, received: unknown, name: string, times?: number): ExpectationResult {
    return TAPE_MATCHERS.toHaveCalledTool(this.isNot, received, name, times)
  },
}

export type { TapeMatchers }
