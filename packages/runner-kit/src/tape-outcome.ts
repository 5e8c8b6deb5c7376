import {
  type DecisionRecord,
  isAgentTapeError,
  type TapeMode,
  type TapeState,
} from '@agent-tape/core/internal'
import { sumUsage, type TokenUsage } from '@agent-tape/http/internal'
import { readRecordedUsage, type UsageReader } from '@agent-tape/inspect/cost'
import type { TapeSummaryEntry } from './tape-summary.js'

/**
 * The summary entry of a tape that could not open (a damaged cassette, a missing one in CI),
 * shown under `mode` and the action that mode would have taken.
 */
export function summarizeOpenFailure(
  test: string,
  cassettePath: string,
  error: unknown,
  mode: TapeMode = 'replay',
): TapeSummaryEntry {
  return {
    test,
    cassettePath,
    mode,
    action: mode === 'live' ? 'passthrough' : mode === 'update' || mode === 'resume' ? 'record' : 'replay',
    status: 'error',
    ...(isAgentTapeError(error) ? { error: error.code } : {}),
    inCassette: 0,
    replayed: 0,
    recorded: 0,
    missed: 0,
    unused: 0,
    written: false,
  }
}

/** Tokens of the decisions a replay served: what the run would have spent live. */
export function replayedTokens(
  state: TapeState,
  recorded: readonly DecisionRecord[],
  reader: UsageReader = readRecordedUsage,
): TokenUsage | undefined {
  if (recorded.length === 0) return undefined
  const replayed = new Set(state.decisions.filter((d) => d.status === 'replayed').map((d) => d.seq))
  return sumUsage(recorded.filter((d) => replayed.has(d.seq)).map((d) => reader(d)))
}
