import {
  type Cassette,
  type DecisionRecord,
  diffJson,
  diffStrings,
  type FieldChange,
  SESSION_KIND,
} from '@agent-tape/core/internal'
import { compactArguments, type ModelAnswer } from '@agent-tape/http/internal'
import { cassetteTotals, describeCostDelta, priceUsage, type RunTotals } from '../cost/run-cost.js'
import { tokens } from '../format/numbers.js'
import { previewJson } from '../reading/preview.js'
import { type DecisionSummary, summarizeDecision } from '../reading/summarize.js'
import { alignDecisions } from './align.js'
import { maskVolatile } from './volatile.js'

export type EntryStatus = 'unchanged' | 'changed' | 'added' | 'removed'

export interface DiffEntry {
  status: EntryStatus
  a?: DecisionSummary
  b?: DecisionSummary
  /** Both keys, when they differ on a changed decision. */
  key?: { a: string; b: string }
  /** Field-level changes of the input (volatile fields masked). */
  input: FieldChange[]
  /** Changes of the output, one readable line each. */
  output: string[]
}

export interface CassetteDiff {
  a: string
  b: string
  /** Changes of the header (test id, harness, SDK versions, env hashes, runtime). */
  header: FieldChange[]
  /** The test each cassette recorded, from its header. */
  tests: { a: string; b: string }
  entries: DiffEntry[]
  counts: Record<EntryStatus, number>
  /**
   * What the change costs: each recording's decisions, steps and tokens by decision, and the
   * line a re-record reports (`issue-412: 7 → 9 decisions, 1,152 → 1,690 tokens (+47%), $0.004 → $0.006`).
   */
  cost: { a: CostSide; b: CostSide; line: string }
}

/** One recording's totals in a diff, priced as of its recording. */
export interface CostSide extends RunTotals {
  usd?: number
  unpriced: string[]
}

/**
 * Compares two recordings of the same test, decision by decision. Env hashes are salted per
 * cassette: two cassettes with different salts can say whether a variable was set, not whether
 * its value changed, so only that is compared.
 */
export function diffCassettes(fileA: string, a: Cassette, fileB: string, b: Cassette): CassetteDiff {
  const sameSalt = a.header.envSalt === b.header.envSalt
  const view = (c: Cassette) => (sameSalt ? c : withEnvPresenceOnly(c))
  const left = view(a).decisions.map((d) => ({ record: d, summary: summarizeDecision(d) }))
  const right = view(b).decisions.map((d) => ({ record: d, summary: summarizeDecision(d) }))
  const entries: DiffEntry[] = []
  for (const pair of alignDecisions(
    left.map((x) => x.summary),
    right.map((x) => x.summary),
  )) {
    if (pair.b === undefined)
      entries.push({ status: 'removed', a: left[pair.a]!.summary, input: [], output: [] })
    else if (pair.a === undefined)
      entries.push({ status: 'added', b: right[pair.b]!.summary, input: [], output: [] })
    else entries.push(compareDecisions(left[pair.a]!, right[pair.b]!))
  }
  const counts: Record<EntryStatus, number> = { unchanged: 0, changed: 0, added: 0, removed: 0 }
  for (const e of entries) counts[e.status]++
  return {
    a: fileA,
    b: fileB,
    header: diffJson(headerView(view(a)), headerView(view(b))),
    tests: { a: a.header.test, b: b.header.test },
    entries,
    counts,
    cost: costOf(a, b, fileB),
  }
}

function costOf(a: Cassette, b: Cassette, fileB: string): CassetteDiff['cost'] {
  const side = (c: Cassette): CostSide => {
    const totals = cassetteTotals(c)
    const priced = priceUsage(totals.usage, totals.recordedAt)
    return { ...totals, ...(priced.usd === undefined ? {} : { usd: priced.usd }), unpriced: priced.unpriced }
  }
  const name = fileB.replace(/^.*[\\/]/, '').replace(/\.jsonl$/, '')
  return { a: side(a), b: side(b), line: describeCostDelta(name, cassetteTotals(a), cassetteTotals(b)) }
}

function withEnvPresenceOnly(c: Cassette): Cassette {
  const presence = (values: unknown) =>
    values && typeof values === 'object'
      ? Object.fromEntries(Object.entries(values).map(([k, v]) => [k, v === null ? null : 'set']))
      : values
  return {
    header: c.header.env
      ? { ...c.header, env: presence(c.header.env) as Record<string, string | null> }
      : c.header,
    decisions: c.decisions.map((d) => (d.kind === 'env' && d.out ? { ...d, out: presence(d.out) } : d)),
  }
}

function headerView({ header }: Cassette) {
  let harness: Record<string, unknown> | undefined = header.harness
  if (header.harness?.git) {
    const { commit: _commit, ...rest } = header.harness
    harness = rest
  }
  // A field one header lacks is absent, not `undefined`: a diverged run's header has no harness,
  // and the diff says `(absent)` for it rather than printing `undefined`.
  const view = { test: header.test, harness, runtime: header.runtime, sdks: header.sdks, env: header.env }
  return maskVolatile(Object.fromEntries(Object.entries(view).filter(([, v]) => v !== undefined)))
}

/**
 * A decision with neither an answer nor an error: the request a diverged run stopped at, which
 * nothing recorded answers (a kept run ends with it). A recording never has one.
 */
export function isUnanswered(record: DecisionRecord): boolean {
  return record.out === undefined && record.err === undefined
}

type Side = { record: DecisionRecord; summary: DecisionSummary }

function compareDecisions(a: Side, b: Side): DiffEntry {
  const input = diffJson(maskVolatile(a.record.in), maskVolatile(b.record.in))
  const output = compareOutputs(a, b)
  const entry: DiffEntry = { status: 'unchanged', a: a.summary, b: b.summary, input, output }
  // Keys hash the input intact, provider ids included, so a re-record against a real provider
  // changes the key of every request that quotes a tool-call id. Only a visible change counts.
  const moved = a.record.step !== b.record.step || a.record.lane !== b.record.lane
  if (moved || input.length > 0 || output.length > 0) {
    entry.status = 'changed'
    if (a.record.key !== b.record.key) entry.key = { a: a.record.key, b: b.record.key }
  }
  return entry
}

function compareOutputs(a: Side, b: Side): string[] {
  if (isUnanswered(a.record) || isUnanswered(b.record)) {
    if (isUnanswered(a.record) && isUnanswered(b.record)) return []
    return [
      isUnanswered(b.record)
        ? 'answer: recorded → none (the run stopped here: no recorded decision answers this request)'
        : 'answer: none → recorded (the first stopped here: nothing recorded answered this request)',
    ]
  }
  const lines: string[] = []
  const errA = a.record.err ? `${a.record.err.name}: ${a.record.err.message}` : undefined
  const errB = b.record.err ? `${b.record.err.name}: ${b.record.err.message}` : undefined
  if (errA !== errB) lines.push(`error: ${errA ?? '(none)'} → ${errB ?? '(none)'}`)
  const answerA = a.summary.model?.answer
  const answerB = b.summary.model?.answer
  if (answerA && answerB) return [...lines, ...compareAnswers(answerA, answerB)]
  const changes = diffJson(maskVolatile(comparable(a.record)), maskVolatile(comparable(b.record)))
  return [...lines, ...changes.map((c) => formatOutputChange(c))]
}

/**
 * A decision's output as two recordings compare it. A session message's frames, as the server's
 * messages they carry (a text frame's JSON read, so that its volatile fields are masked), without
 * when each came: that changes on every recording.
 */
function comparable(record: DecisionRecord): unknown {
  if (record.kind !== SESSION_KIND) return record.out
  const out = record.out as { frames?: unknown } | undefined
  if (!out || !Array.isArray(out.frames)) return record.out
  const frames = out.frames.map((frame: { at?: number; text?: string }) => {
    const { at: _at, ...rest } = frame
    if (typeof rest.text !== 'string') return rest
    try {
      return { message: JSON.parse(rest.text) as unknown }
    } catch {
      return rest
    }
  })
  return { ...out, frames }
}

function formatOutputChange(change: FieldChange): string {
  return `${change.path === '(root)' ? 'result' : change.path}: ${describe(change, 'before')} → ${describe(change, 'after')}`
}

function describe(change: FieldChange, side: 'before' | 'after'): string {
  if (change.type === (side === 'before' ? 'added' : 'removed')) return '(absent)'
  const value = change[side]
  const other = change[side === 'before' ? 'after' : 'before']
  if (typeof value === 'string' && typeof other === 'string') {
    const [x, y] = diffStrings(change.before as string, change.after as string)
    return side === 'before' ? x : y
  }
  return previewJson(value, 80)
}

/** What a model said differently: text, tool calls, finish reason, usage, status, errors. Ids are ignored. */
function compareAnswers(a: ModelAnswer, b: ModelAnswer): string[] {
  const lines: string[] = []
  if (a.status !== b.status) lines.push(`status: ${a.status} → ${b.status}`)
  if (a.streamed !== b.streamed) lines.push(`streamed: ${a.streamed} → ${b.streamed}`)
  if (a.model !== b.model) lines.push(`model: ${a.model ?? '(none)'} → ${b.model ?? '(none)'}`)
  if (a.text !== b.text) {
    const [x, y] = diffStrings(a.text, b.text)
    lines.push(`text: ${x} → ${y}`)
  }
  const calls = Math.max(a.toolCalls.length, b.toolCalls.length)
  for (let i = 0; i < calls; i++) {
    const x = a.toolCalls[i]
    const y = b.toolCalls[i]
    const show = (c: typeof x) => (c ? `${c.name} ${compactArguments(c.arguments)}` : '(none)')
    if (show(x) !== show(y)) lines.push(`tool call ${i + 1}: ${show(x)} → ${show(y)}`)
  }
  if (a.finishReason !== b.finishReason)
    lines.push(`finish: ${a.finishReason ?? '(none)'} → ${b.finishReason ?? '(none)'}`)
  const usage = (u: ModelAnswer['usage']) => (u ? tokens(u) : '(none)')
  if (usage(a.usage) !== usage(b.usage)) lines.push(`tokens: ${usage(a.usage)} → ${usage(b.usage)}`)
  if (a.error !== b.error) lines.push(`error: ${a.error ?? '(none)'} → ${b.error ?? '(none)'}`)
  return lines
}
