import type { WordPart } from '@agent-tape/core/internal'
import { formatCount } from '@agent-tape/inspect'
import type { Style } from '../output/style.js'
import type {
  DecisionChange,
  RecordingSide,
  TapeChange,
  TapeChangeStatus,
  TapeChanges,
} from './tape-changes.js'

/** `origin/main (3f2a9c1d0e4b)`, or `the working tree`. */
export function describeSideRef(side: { ref?: string; commit?: string }): string {
  return side.commit ? `${side.ref} (${side.commit.slice(0, 12)})` : 'the working tree'
}

/** `3 changed, 1 added, 1 removed, 1 obsolete`. */
export function describeCounts(counts: Record<TapeChangeStatus, number>): string {
  const total = Object.values(counts).reduce((sum, n) => sum + n, 0)
  const noun = `cassette${total === 1 ? '' : 's'}`
  return `${total} ${noun}: ${counts.changed} changed, ${counts.added} added, ${counts.removed} removed, ${counts.obsolete} obsolete`
}

/** `1,234 → 1,290 (+5%)`; a side that is not there is `—`. */
export function describeTokens(before?: RecordingSide, after?: RecordingSide): string {
  const total = (s?: RecordingSide) => (s ? s.tokens.input + s.tokens.output : undefined)
  return arrow(total(before), total(after), formatCount, true)
}

export function describeSteps(before?: RecordingSide, after?: RecordingSide): string {
  return arrow(before?.steps, after?.steps, formatCount, false)
}

export function describeCostChange(before?: RecordingSide, after?: RecordingSide): string {
  if (before && after) return before.cost === after.cost ? before.cost : `${before.cost} → ${after.cost}`
  return `${before?.cost ?? '—'} → ${after?.cost ?? '—'}`
}

function arrow<T extends number>(
  a: T | undefined,
  b: T | undefined,
  show: (n: T) => string,
  percent: boolean,
) {
  if (a !== undefined && b !== undefined) {
    if (a === b) return show(a)
    const change = percent && a !== 0 ? ` (${b > a ? '+' : ''}${Math.round(((b - a) / a) * 100)}%)` : ''
    return `${show(a)} → ${show(b)}${change}`
  }
  return `${a === undefined ? '—' : show(a)} → ${b === undefined ? '—' : show(b)}`
}

/** `gpt-4o · openai 6.49.0 · agent-tape 0.1.0 · recorded 2026-12-02T18:50:11.000Z`. */
export function describeProvenance(side: RecordingSide): string {
  const parts = [side.models.length > 0 ? side.models.join(', ') : 'no model request']
  for (const [name, version] of Object.entries(side.sdks)) parts.push(`${name} ${version}`)
  if (side.agentTape) parts.push(`agent-tape ${side.agentTape}`)
  parts.push(`recorded ${side.recordedAt}`)
  return parts.join(' · ')
}

/** `step 1, #2 model request (gpt-4o)`, and `(added)` or `(removed)` for a decision only one recording has. */
export function describeDecisionChange(change: DecisionChange): string {
  return `step ${change.step}, #${change.seq} ${change.label}${change.status === 'changed' ? '' : ` (${change.status})`}`
}

/** Text on one line: line breaks, other control characters and backslashes escaped as in JSON, quotes kept. */
export function oneLine(text: string): string {
  return text.replace(/[\u0000-\u001f\u007f\\]/g, (c) => JSON.stringify(c).slice(1, -1))
}

/** A hunk of a word diff on one line, removed words as `[-…-]` and added ones as `{+…+}`, as git's word diff prints them. */
export function renderWordHunk(hunk: readonly WordPart[], style: Style): string {
  return hunk
    .map(({ text, change }) => {
      const body = oneLine(text)
      if (change === 'removed') return style.red(`[-${body}-]`)
      if (change === 'added') return style.green(`{+${body}+}`)
      return body
    })
    .join('')
}

const COLORS = { changed: 'yellow', added: 'green', removed: 'red', obsolete: 'cyan' } as const

/** The terminal report of `agent-tape diff --base`. */
export function renderTapeChanges(report: TapeChanges, style: Style): string {
  const lines = [`Cassettes changed from ${describeSideRef(report.base)} to ${describeSideRef(report.head)}`]
  for (const c of report.cassettes) lines.push('', ...renderCassette(c, style))
  lines.push('', describeCounts(report.counts))
  return `${lines.join('\n')}\n`
}

function renderCassette(c: TapeChange, style: Style): string[] {
  const lines = [`${style[COLORS[c.status]](c.status.padEnd(8))}  ${style.bold(c.path)}`]
  const field = (name: string, values: readonly string[]) => {
    values.forEach((value, i) => {
      lines.push(`    ${style.dim((i === 0 ? name : '').padEnd(10))} ${style.redactions(value)}`)
    })
  }
  if (c.why) field('why', [c.why])
  if (c.header) field('header', c.header)
  if (c.first) field('first', [describeDecisionChange(c.first)])
  for (const change of [c.first, c.firstInput]) {
    if (!change) continue
    if (change !== c.first) field('then', [describeDecisionChange(change)])
    if (change.what) field('what', [change.what])
    field(
      'in',
      change.input.flatMap((i) => inputLines(i, style)),
    )
    field('out', change.output)
  }
  if (c.toolCalls) {
    field('tool calls', [
      ...c.toolCalls.added.map((call) => style.green(`+ ${call}`)),
      ...c.toolCalls.removed.map((call) => style.red(`- ${call}`)),
    ])
  }
  field('steps', [describeSteps(c.before, c.after)])
  field('tokens', [describeTokens(c.before, c.after)])
  field('cost', [describeCostChange(c.before, c.after)])
  // An obsolete cassette is the same recording on both sides.
  if (c.before && c.after && c.status !== 'obsolete') {
    field('before', [describeProvenance(c.before)])
    field('after', [describeProvenance(c.after)])
  } else field('recorded', [describeProvenance((c.after ?? c.before)!)])
  return lines
}

function inputLines(change: DecisionChange['input'][number], style: Style): string[] {
  if (change.line !== undefined) return [change.line]
  return (change.words ?? []).map((hunk) => `${change.path}: ${renderWordHunk(hunk, style)}`)
}
