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
  toHaveTakenAtMostSteps(this: MatcherState, received: unknown, steps: number): ExpectationResult {
    return TAPE_MATCHERS.toHaveTakenAtMostSteps(this.isNot, received, steps)
  },
  toHaveUsedAtMostTokens(
    this: MatcherState,
    received: unknown,
    tokens: number | { input?: number; output?: number },
  ): ExpectationResult {
    return TAPE_MATCHERS.toHaveUsedAtMostTokens(this.isNot, received, tokens)
  },
  toHaveCostAtMost(this: MatcherState, received: unknown, usd: number): ExpectationResult {
    return TAPE_MATCHERS.toHaveCostAtMost(this.isNot, received, usd)
  },
}

export type { TapeMatchers }
