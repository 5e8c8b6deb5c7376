import { cutForPrinting, formatChanges } from '@agent-tape/core/internal'
import { type CassetteDiff, type DecisionSummary, type DiffEntry, previewJson } from '@agent-tape/inspect'
import type { Style } from '../output/style.js'

export interface DiffRenderOptions {
  style: Style
  /** Most input changes listed per decision. */
  maxChanges: number
  /**
   * The second file is a run that diverged (it ends with the request it missed): the recorded
   * decisions after its last one were never reached, and are said so once rather than listed
   * as removed one by one.
   */
  run?: boolean
}

const MARKS = { unchanged: '=', changed: '~', added: '+', removed: '-' } as const

/** The readable report of `agent-tape diff`. */
export function renderDiff(diff: CassetteDiff, { style, maxChanges, run }: DiffRenderOptions): string {
  const lines = [style.red(`--- ${diff.a}`), style.green(`+++ ${diff.b}`)]
  const tests = diff.tests
  if (tests.a !== tests.b) {
    lines.push(
      style.yellow(
        `warning: these are recordings of different tests (${JSON.stringify(tests.a)} and ${JSON.stringify(tests.b)}); the diff compares them all the same`,
      ),
    )
  }
  if (diff.header.length > 0) {
    lines.push('', style.bold('header'))
    for (const line of formatChanges(diff.header, maxChanges)) lines.push(`    ${style.redactions(line)}`)
  }
  lines.push('')
  const repeated = repeatedChanges(diff.entries, maxChanges)
  const reached = run ? diff.entries.findLastIndex((e) => e.b !== undefined) + 1 : diff.entries.length
  const notReached = diff.entries.slice(reached).filter((e) => e.status === 'removed')
  const shown = notReached.length > 0 ? diff.entries.slice(0, reached) : diff.entries
  for (const entry of shown) lines.push(...renderEntry(entry, style, maxChanges, repeated))
  if (notReached.length > 0) {
    const first = notReached[0]!.a!.seq
    const last = notReached.at(-1)!.a!.seq
    const which = first === last ? `#${first}` : `#${first} to #${last}`
    const count = `${notReached.length} recorded decision${notReached.length === 1 ? '' : 's'}`
    lines.push(
      style.dim(`· ${which}  not reached: the run stopped at the request it missed, before these ${count}`),
    )
  }
  const { unchanged, changed, added } = diff.counts
  const removed = diff.counts.removed - notReached.length
  const total = (side: 'a' | 'b') => diff.entries.filter((e) => e[side]).length
  const counts = [`${changed} changed`, `${added} added`, `${removed} removed`]
  if (notReached.length > 0) counts.push(`${notReached.length} not reached`)
  counts.push(`${unchanged} unchanged`)
  lines.push('', `${total('a')} → ${total('b')} decisions: ${counts.join(', ')}`, diff.cost.line)
  return `${lines.join('\n')}\n`
}

/**
 * Input changes that several decisions share (a system prompt edit reaches every later model
 * request): the decisions each one applies to, so it is shown once, at the first of them.
 */
function repeatedChanges(entries: readonly DiffEntry[], maxChanges: number): Map<string, string[]> {
  const where = new Map<string, string[]>()
  for (const entry of entries) {
    if (entry.status !== 'changed' || !entry.b) continue
    for (const line of new Set(formatChanges(entry.input, maxChanges))) {
      const seqs = where.get(line) ?? []
      seqs.push(`#${entry.b.seq}`)
      where.set(line, seqs)
    }
  }
  for (const [line, seqs] of where) if (seqs.length < 2) where.delete(line)
  return where
}

function renderEntry(
  entry: DiffEntry,
  style: Style,
  maxChanges: number,
  repeated: ReadonlyMap<string, string[]>,
): string[] {
  const d = (entry.b ?? entry.a)!
  const seq =
    entry.a && entry.b
      ? entry.a.seq === entry.b.seq
        ? `#${entry.a.seq}`
        : `#${entry.a.seq} → #${entry.b.seq}`
      : `#${d.seq}`
  const title = `${MARKS[entry.status]} ${seq}  ${position(entry)}  ${label(entry)}`
  const color = { unchanged: style.dim, changed: style.yellow, added: style.green, removed: style.red }[
    entry.status
  ]
  const lines = [color(title)]
  const field = (name: string, values: readonly string[]) => {
    values.forEach((value, i) => {
      lines.push(`    ${style.dim((i === 0 ? name : '').padEnd(6))} ${style.redactions(value)}`)
    })
  }
  if (entry.status === 'added' || entry.status === 'removed') {
    field('key', [d.key])
    field('what', [summaryLine(d)])
    return lines
  }
  if (entry.key) field('key', [`${entry.key.a} → ${entry.key.b}`])
  if (entry.input.length > 0) {
    const own = `#${d.seq}`
    const shown: string[] = []
    const sameAs = new Set<string>()
    for (const line of formatChanges(entry.input, maxChanges)) {
      const seqs = repeated.get(line)
      if (!seqs) shown.push(line)
      else if (seqs[0] === own) shown.push(`${line}  ${style.dim(`(also ${seqs.slice(1).join(', ')})`)}`)
      else sameAs.add(seqs[0]!)
    }
    for (const first of sameAs) shown.push(style.dim(`the same change as ${first}`))
    field('in', shown)
  }
  if (entry.output.length > 0) field('out', entry.output)
  return lines
}

function position(entry: DiffEntry): string {
  const a = entry.a
  const b = entry.b
  const text = (d: DecisionSummary) =>
    `step ${d.step}${d.lane !== undefined ? ` (lane ${JSON.stringify(d.lane)})` : ''}`
  if (a && b && text(a) !== text(b)) return `${text(a)} → ${text(b)}`
  return text((b ?? a)!)
}

function label(entry: DiffEntry): string {
  const a = entry.a?.label
  const b = entry.b?.label
  return a && b && a !== b ? `${a} → ${b}` : (b ?? a)!
}

/** A one-line description of a whole decision, for added and removed ones. */
function summaryLine(d: DecisionSummary): string {
  if (d.tool)
    return `${d.tool.name} ${preview(d.tool.args)}${d.output !== undefined ? ` → ${preview(d.output)}` : ''}`
  if (d.env) return Object.keys(d.env).join(', ')
  const answer = d.model?.answer
  if (answer) {
    const parts: string[] = []
    if (answer.text) parts.push(JSON.stringify(cutForPrinting(answer.text, 60)))
    for (const call of answer.toolCalls) parts.push(`call ${call.name}`)
    if (answer.finishReason) parts.push(`finish ${answer.finishReason}`)
    if (answer.error) parts.push(answer.error)
    return parts.join(' · ') || `status ${answer.status}`
  }
  if (d.error) return `${d.error.name}: ${d.error.message}`
  return preview(d.input)
}

function preview(value: unknown): string {
  return previewJson(value, 80)
}
