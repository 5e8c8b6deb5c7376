import { formatChanges, SESSION_KIND } from '@agent-tape/core/internal'
import type { CassetteDiff, DiffEntry } from '@agent-tape/inspect'

/** What moved under a test: nothing, the model, a tool or the environment, or the code. */
export type DriftClass = 'unchanged' | 'model' | 'tools' | 'code' | 'budget' | 'error'

/** The first place a test's live run parted from its committed recording. */
export interface FirstChange {
  /** `step 2, tool "get_weather"`. */
  where: string
  /** What changed there, one line: `text: echo: Paris → echo: Oslo`. */
  what: string
}

/**
 * The class of a live re-record against its committed recording, by the first decision that
 * differs: the same request answered differently is the model's drift (`llm`, a realtime
 * session's message) or a tool's
 * (tool calls, MCP calls, environment reads, other HTTP); a request that itself changed while
 * everything answered before it was the same was fed by something no tape records (the clock,
 * a random value, a file), which counts with the environment.
 */
export function classifyDiff(diff: CassetteDiff): { class: DriftClass; first?: FirstChange } {
  const entry = diff.entries.find((e) => e.status !== 'unchanged' && !onlyUsage(e))
  if (!entry) return { class: 'unchanged' }
  const side = entry.a ?? entry.b!
  const where = `${position(side)}, ${side.label}`
  if (entry.status === 'added')
    return {
      class: 'tools',
      first: { where, what: 'asked for live only: something no tape records led the run here' },
    }
  if (entry.status === 'removed')
    return {
      class: 'tools',
      first: { where, what: 'not asked for live: something no tape records led the run elsewhere' },
    }
  if (entry.input.length === 0 && entry.output.length > 0) {
    return { class: answeredByModel(side.kind) ? 'model' : 'tools', first: { where, what: entry.output[0]! } }
  }
  return { class: 'tools', first: { where, what: `request changed: ${inputChange(entry)}` } }
}

/**
 * A model's answer that differs only in its token counts: the same answer (a provider's prompt
 * cache alone changes the cached tokens from one run to the next), not the model's drift.
 */
function onlyUsage(entry: DiffEntry): boolean {
  return (
    entry.status === 'changed' &&
    entry.a !== undefined &&
    answeredByModel(entry.a.kind) &&
    entry.a.step === entry.b?.step &&
    entry.a.lane === entry.b?.lane &&
    entry.input.length === 0 &&
    entry.output.length > 0 &&
    entry.output.every((line) => line.startsWith('tokens: '))
  )
}

/** A model request's answer, or what a model's session sent after a message: the model's. */
function answeredByModel(kind: string): boolean {
  return kind === 'llm' || kind === SESSION_KIND
}

/** The first changed field of a decision's input, as the miss report shows it. */
export function inputChange(entry: DiffEntry): string {
  return entry.input.length > 0 ? formatChanges(entry.input.slice(0, 1))[0]! : 'its place in the run'
}

export function position(decision: { step: number; lane?: string }): string {
  return decision.lane ? `step ${decision.step} in lane ${decision.lane}` : `step ${decision.step}`
}
