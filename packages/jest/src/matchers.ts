import { TAPE_MATCHERS, type TapeMatchers } from '@agent-tape/runner-kit/setup'
import type { MatcherContext } from 'expect'

/** The tape matchers for Jest's `expect.extend`, from core's runner-neutral ones. */
export const tapeMatchers = {
  toReplayCleanly(this: MatcherContext, received: unknown) {
    return TAPE_MATCHERS.toReplayCleanly(this.isNot ?? false, received)
  },
  toHaveDecisions(this: MatcherContext, received: unknown, count: number, kind?: string) {
    return TAPE_MATCHERS.toHaveDecisions(this.isNot ?? false, received, count, kind)
  },
  toHaveCalledTool(this: MatcherContext, received: unknown, name: string, times?: number) {
    return TAPE_MATCHERS.toHaveCalledTool(this.isNot ?? false, received, name, times)
  },
  toHaveTakenAtMostSteps(this: MatcherContext, received: unknown, steps: number) {
    return TAPE_MATCHERS.toHaveTakenAtMostSteps(this.isNot ?? false, received, steps)
  },
  toHaveUsedAtMostTokens(
    this: MatcherContext,
    received: unknown,
    tokens: number | { input?: number; output?: number },
  ) {
    return TAPE_MATCHERS.toHaveUsedAtMostTokens(this.isNot ?? false, received, tokens)
  },
  toHaveCostAtMost(this: MatcherContext, received: unknown, usd: number) {
    return TAPE_MATCHERS.toHaveCostAtMost(this.isNot ?? false, received, usd)
  },
}

export type { TapeMatchers }
