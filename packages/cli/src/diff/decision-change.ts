import { diffWordHunks, type FieldChange, formatChange, type WordPart } from '@agent-tape/core/internal'
import { type DecisionSummary, type DiffEntry, previewJson } from '@agent-tape/inspect'

/** An input change: the words that changed in a text, or the whole change of another value. */
export interface InputChange {
  path: string
  /** Hunks of a changed text (see `diffWordHunks`). */
  words?: WordPart[][]
  /** `path: before → after`, for what is not a text changed in place. */
  line?: string
}

/** A decision of a changed cassette that differs, with what differs in it. */
export interface DecisionChange {
  seq: number
  step: number
  label: string
  status: DiffEntry['status']
  input: InputChange[]
  output: string[]
  /** For an added or removed decision: the whole decision on one line. */
  what?: string
}

/** Input changes listed per decision, as `diff` lists them by default. */
const MAX_INPUT_CHANGES = 12

/** A differing decision as the report shows it: its changed inputs as word diffs, its output lines. */
export function decisionChange(entry: DiffEntry): DecisionChange {
  const d = (entry.b ?? entry.a)!
  const change: DecisionChange = {
    seq: d.seq,
    step: d.step,
    label: d.label,
    status: entry.status,
    input: entry.input.slice(0, MAX_INPUT_CHANGES).map(inputChange),
    output: entry.output,
  }
  if (entry.status === 'added' || entry.status === 'removed') change.what = describeDecision(d)
  return change
}

function inputChange(change: FieldChange): InputChange {
  if (change.type === 'changed' && typeof change.before === 'string' && typeof change.after === 'string')
    return { path: change.path, words: diffWordHunks(change.before, change.after) }
  return { path: change.path, line: formatChange(change) }
}

/** Tool calls one recording made that the other did not, each counted as often as it was made. */
export function toolCallsChanged(entries: readonly DiffEntry[]): { added: string[]; removed: string[] } {
  const calls = (side: 'a' | 'b') =>
    entries.flatMap((e) => {
      const tool = e[side]?.tool
      return tool ? [`${tool.name} ${previewJson(tool.args, 80)}`] : []
    })
  const without = (from: string[], other: string[]) => {
    const left = [...other]
    return from.filter((call) => {
      const i = left.indexOf(call)
      if (i === -1) return true
      left.splice(i, 1)
      return false
    })
  }
  const a = calls('a')
  const b = calls('b')
  return { added: without(b, a), removed: without(a, b) }
}

function describeDecision(d: DecisionSummary): string {
  if (d.tool) return `${d.tool.name} ${previewJson(d.tool.args, 80)}`
  const answer = d.model?.answer
  if (answer) {
    const parts = [
      ...(answer.text ? [previewJson(answer.text, 60)] : []),
      ...answer.toolCalls.map((c) => `call ${c.name}`),
    ]
    return parts.join(' · ') || `status ${answer.status}`
  }
  return previewJson(d.input, 80)
}
