import { diffTextRows, type FieldChange } from '@agent-tape/core/internal'
import { compactArguments, type ModelAnswer } from '@agent-tape/http/internal'
import type { CassetteDiff, DiffEntry } from '../diff/compare.js'
import type { CardData, InputEdit, RowData, SideData, Verdict } from './page-data.js'

/** Input changes listed per decision; the CLI's `--full` has them all. */
const MAX_EDITS = 40

/** The recorded inputs of each side's decisions, by card, and the mask every shown string takes. */
export interface RowInputs {
  a: readonly unknown[]
  b: readonly unknown[]
  mask: (text: string) => string
}

/**
 * The rows of a side-by-side page, in the order `agent-tape diff` aligns the decisions, each
 * with a verdict, its changes, and the card fields to highlight. When the second side is a
 * diverged run, its decision that no recording answers is `missed`, and the recorded decisions
 * after the run's last one are `not reached` rather than removed.
 */
export function buildRows(
  diff: CassetteDiff,
  a: SideData,
  b: SideData,
  isRun: boolean,
  inputs: RowInputs,
): RowData[] {
  const cardOf = (side: SideData, seq: number | undefined) =>
    seq === undefined ? undefined : side.cards.findIndex((c) => c.seq === seq)
  const rows = diff.entries.map((entry): RowData => {
    const ai = cardOf(a, entry.a?.seq)
    const bi = cardOf(b, entry.b?.seq)
    const before = ai === undefined ? undefined : a.cards[ai]
    const after = bi === undefined ? undefined : b.cards[bi]
    const missed = isRun && after?.missed === true
    const row: RowData = {
      verdict: missed ? 'missed' : verdictOf(entry),
      edits: entry.input
        .slice(0, MAX_EDITS)
        .map((change) =>
          inputEdit(
            change,
            ai === undefined ? undefined : inputs.a[ai],
            bi === undefined ? undefined : inputs.b[bi],
            inputs.mask,
          ),
        ),
      // A miss has no answer: there is nothing to compare it with.
      output: missed ? [] : entry.output,
      fields: before && after ? changedFields(entry, before, after, missed) : [],
    }
    if (entry.input.length > MAX_EDITS) row.moreEdits = entry.input.length - MAX_EDITS
    if (ai !== undefined) row.a = ai
    if (bi !== undefined) row.b = bi
    return row
  })
  if (isRun) {
    const last = rows.findLastIndex((r) => r.b !== undefined)
    for (const row of rows.slice(last + 1)) if (row.verdict === 'removed') row.verdict = 'not reached'
  }
  return rows
}

/** One line for the page's head: how the two sides compare. */
export function describeRows(rows: readonly RowData[], a: SideData, b: SideData, isRun: boolean): string {
  const count = (verdict: Verdict) => rows.filter((r) => r.verdict === verdict).length
  if (isRun) {
    const missed = rows.findIndex((r) => r.verdict === 'missed')
    const where =
      missed === -1
        ? 'the run asked for no unrecorded decision'
        : `diverged at decision #${b.cards[rows[missed]!.b!]!.seq} (step ${b.cards[rows[missed]!.b!]!.step})`
    return `${where}: ${count('same')} the same, ${count('missed')} missed, ${count('changed input') + count('changed answer')} changed, ${count('added')} added, ${count('not reached')} not reached of ${a.cards.length} recorded`
  }
  const changed = count('changed input') + count('changed answer')
  return `${a.cards.length} → ${b.cards.length} decisions: ${changed} changed, ${count('added')} added, ${count('removed')} removed, ${count('same')} unchanged`
}

function verdictOf(entry: DiffEntry): Verdict {
  if (entry.status === 'unchanged') return 'same'
  if (entry.status === 'added' || entry.status === 'removed') return entry.status
  const moved = entry.a?.step !== entry.b?.step || entry.a?.lane !== entry.b?.lane
  return entry.input.length > 0 || moved ? 'changed input' : 'changed answer'
}

/**
 * A changed field as the page shows it: named as a reader counts (`message 303 (system)`), its
 * two versions aligned row by row with the changed words marked. Both are masked before they
 * are compared, so that no piece of a secret is left whole between two marks.
 */
function inputEdit(
  change: FieldChange,
  before: unknown,
  after: unknown,
  mask: (text: string) => string,
): InputEdit {
  const { path } = change
  const text = (value: unknown) =>
    value === undefined ? '' : mask(typeof value === 'string' ? value : JSON.stringify(value, null, 2))
  return {
    path,
    name: nameOfPath(path, change.type === 'removed' ? before : after),
    change: change.type === 'added' ? 'inserted' : change.type,
    rows: diffTextRows(text(change.before), text(change.after)),
  }
}

/**
 * What a path of a recorded input names, counted from 1 as a reader counts: `message 303
 * (system)` for `body.messages[302]…`, `system prompt`, `tool 2 (search)`, `argument city`.
 */
export function nameOfPath(path: string, input: unknown): string {
  const item = /^body\.(messages|input|contents)\[(\d+)\]/.exec(path)
  if (item) {
    const list = asRecord(asRecord(input).body)[item[1]!]
    const entry = asRecord(Array.isArray(list) ? list[Number(item[2])] : undefined)
    const role = entry.role ?? entry.type
    return `message ${Number(item[2]) + 1}${typeof role === 'string' ? ` (${role})` : ''}`
  }
  if (/^body\.(system|instructions|systemInstruction|system_instruction)\b/.test(path)) return 'system prompt'
  const tool = /^body\.tools\[(\d+)\]/.exec(path)
  if (tool) {
    const tools = asRecord(asRecord(input).body).tools
    const entry = asRecord(Array.isArray(tools) ? tools[Number(tool[1])] : undefined)
    const name = entry.name ?? asRecord(entry.function).name
    return `tool ${Number(tool[1]) + 1}${typeof name === 'string' ? ` (${name})` : ''}`
  }
  const arg = /^args(?:\[0\])?\.([A-Za-z_$][\w$]*)/.exec(path)
  if (arg) return `argument ${arg[1]}`
  if (path.startsWith('args')) return 'arguments'
  if (path === 'body.model') return 'model'
  return ''
}

function asRecord(value: unknown): Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : {}
}

/** The card fields a change touches, so that both cards highlight the same rows. */
function changedFields(entry: DiffEntry, a: CardData, b: CardData, missed: boolean): string[] {
  const fields = new Set<string>()
  for (const change of entry.input) fields.add(inputField(a.kind, change.path))
  if (a.step !== b.step || a.lane !== b.lane) fields.add('position')
  if (!missed) {
    const x = a.model?.answer
    const y = b.model?.answer
    if (x && y) for (const field of answerFields(x, y)) fields.add(field)
    else if (entry.output.length > 0) fields.add(a.tool ? 'result' : 'output')
    if (a.error?.message !== b.error?.message) fields.add('error')
  }
  return [...fields]
}

const CONVERSATION = new Set(['messages', 'input', 'contents', 'system', 'instructions', 'systemInstruction'])

function inputField(kind: string, path: string): string {
  if (kind === 'tool') return path.startsWith('args') ? 'args' : 'name'
  if (kind === 'env') return 'env'
  if (kind !== 'llm') return 'input'
  const field = /^body\.([A-Za-z_$][\w$]*)/.exec(path)?.[1]
  if (field === undefined) return 'request'
  if (CONVERSATION.has(field)) return 'messages'
  return field === 'tools' || field === 'model' ? field : 'request'
}

function answerFields(a: ModelAnswer, b: ModelAnswer): string[] {
  const fields: string[] = []
  const calls = (x: ModelAnswer) =>
    x.toolCalls.map((c) => `${c.name} ${compactArguments(c.arguments)}`).join('\n')
  if (a.text !== b.text) fields.push('text')
  if (calls(a) !== calls(b)) fields.push('calls')
  if (a.finishReason !== b.finishReason) fields.push('finish')
  if (JSON.stringify(a.usage) !== JSON.stringify(b.usage)) fields.push('tokens')
  if (a.status !== b.status || a.streamed !== b.streamed) fields.push('answer')
  if (a.error !== b.error) fields.push('error')
  return fields
}
