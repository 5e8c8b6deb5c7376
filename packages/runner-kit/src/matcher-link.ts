import { beforeTapeOpens } from '@agent-tape/core/context'
import { notATape } from './not-a-tape.js'
import type { MATCHER_IMPLEMENTATIONS } from './tape-matchers.js'

type Implementations = typeof MATCHER_IMPLEMENTATIONS

// One link per realm, shared by every copy of the runner kit loaded in it (the setup file's and
// the test file's), like the tape context.
const SLOT = Symbol.for('agent-tape.runner-kit.tape-matchers')
const holder = globalThis as { [SLOT]?: { implementations?: Implementations; stop?: () => void } }

/**
 * The tape matchers as a runner's setup file registers them (`expect.extend`): each calls its
 * implementation, which loads with the first tape of the process (see
 * {@link loadTapeMatchersWithFirstTape}), so that a test file without tapes never loads what
 * measures a run. Before any tape has opened there is no tape to match.
 *
 * @example
 * expect.extend({ toReplayCleanly(received) { return TAPE_MATCHERS.toReplayCleanly(this.isNot, received) } })
 */
export const TAPE_MATCHERS: Implementations = {
  toReplayCleanly: (isNot, received) =>
    implementation('toReplayCleanly', received).toReplayCleanly(isNot, received),
  toHaveDecisions: (isNot, received, count, kind) =>
    implementation('toHaveDecisions', received).toHaveDecisions(isNot, received, count, kind),
  toHaveCalledTool: (isNot, received, name, times) =>
    implementation('toHaveCalledTool', received).toHaveCalledTool(isNot, received, name, times),
  toHaveTakenAtMostSteps: (isNot, received, steps) =>
    implementation('toHaveTakenAtMostSteps', received).toHaveTakenAtMostSteps(isNot, received, steps),
  toHaveUsedAtMostTokens: (isNot, received, tokens) =>
    implementation('toHaveUsedAtMostTokens', received).toHaveUsedAtMostTokens(isNot, received, tokens),
  toHaveCostAtMost: (isNot, received, usd) =>
    implementation('toHaveCostAtMost', received).toHaveCostAtMost(isNot, received, usd),
}

/**
 * Has the first tape of the process load the matchers' implementations before it opens (every
 * tape opens through `openTape`, which awaits such hooks). A runner's setup file calls it once.
 */
export function loadTapeMatchersWithFirstTape(): void {
  holder[SLOT] ??= {}
  const link = holder[SLOT]
  if (link.implementations || link.stop) return
  const stop = beforeTapeOpens(async () => {
    link.implementations ??= (await import('./tape-matchers.js')).MATCHER_IMPLEMENTATIONS
    stop()
  })
  link.stop = stop
}

function implementation(matcher: string, received: unknown): Implementations {
  const loaded = holder[SLOT]?.implementations
  if (!loaded) throw notATape(matcher, received)
  return loaded
}
