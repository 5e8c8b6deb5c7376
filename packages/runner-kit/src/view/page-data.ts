import type { Cassette, DecisionRecord, RecordedError } from '@agent-tape/core/internal'
import { type ModelAnswer, type ModelRequest, recordedStream } from '@agent-tape/http/internal'
import { describeCost } from '../cost/run-cost.js'
import { countKind, describeHarness, describeSource, tokens } from '../reading/preview.js'
import { type CassetteSummary, type DecisionSummary, summarizeCassette } from '../reading/summarize.js'
import type { SharedValues } from './shared-values.js'

/** Everything the page shows, embedded in it as JSON: the page draws itself from this. */
export interface PageData {
  /** A run on its own, or two runs side by side. */
  kind: 'run' | 'compare'
  title: string
  /** `agent-tape 0.1.0`, in the page's footer. */
  generator: string
  sides: SideData[]
  /** The aligned decisions of the two sides, with a verdict each (`compare` only). */
  rows?: RowData[]
  /** A line such as `4 → 6 decisions: 2 changed, 2 added, 0 removed, 2 unchanged`. */
  verdict?: string
  /** Values stored once (see `SharedValues`). */
  shared: unknown[]
}

/** What a side of the page is. */
export type SideRole = 'recording' | 'run' | 'before' | 'after'

export interface SideData {
  role: SideRole
  file: string
  header: HeaderData
  totals: CassetteSummary['totals']
  /** Lane names in order of first appearance; `''` is the run's main lane. */
  lanes: string[]
  /** The longest decision, for the duration bars (the longest of both sides when compared). */
  maxMs: number
  cards: CardData[]
}

/** The cassette's header and totals, as the head of the page shows them (as `show` does). */
export interface HeaderData {
  test: string
  recordedAt: string
  /** `tree 296861c9f468 of src at commit 5a8c12931d70 with uncommitted changes`, … */
  harness: string
  /** Where the run was recorded when not by a test: `captured run "triage" (k3j9…): failed, …`. */
  source: string
  /** `agent-tape 0.1.0 · node v20.20.2 (linux)` */
  runtime: string
  sdks: string
  env: string
  /** `4: 1 env read, 2 model requests, 1 tool call` */
  decisions: string
  tokens: string
  /** `$0.0031 (gpt-4o $0.0031)`, or `no price (llama3.2)`, as of the recording. */
  cost: string
  /** The paths every key of the recording left out (`ignore`), which its inputs still hold. */
  ignored: string
  time: string
}

/** One decision, as its card shows it; `whole` is everything it recorded, for opening it. */
export interface CardData {
  seq: number
  kind: string
  step: number
  lane: string
  key: string
  ms: number
  label: string
  model?: {
    request: ModelRequest
    /** Names of the tools offered. */
    tools: string[]
    answer?: ModelAnswer & { stream?: { key: string; count: number } }
  }
  tool?: { name: string; args: unknown }
  env?: Record<string, string | null>
  /** The result of an MCP tool call, read from its response (other outputs are in `whole`). */
  output?: unknown
  error?: RecordedError
  /** A decision of the run that no recording answers: where it diverged. */
  missed?: true
  whole: { in: unknown; out?: unknown; err?: RecordedError }
}

/** How a decision of the second side relates to the first. */
export type Verdict =
  | 'same'
  | 'changed input'
  | 'changed answer'
  | 'added'
  | 'removed'
  | 'missed'
  | 'not reached'

export interface RowData {
  verdict: Verdict
  /** Indices into each side's cards. */
  a?: number
  b?: number
  /** Input changes, each edit of a string on its own: `[path, before, after]`. */
  input: [string, string, string][]
  /** Output changes, one readable line each. */
  output: string[]
  /** Card fields that differ, highlighted on both sides: `messages`, `text`, `args`, `result`, … */
  fields: string[]
}

/** The cards and header of one cassette, its long values shared through `shared`. */
export function buildSide(
  role: SideRole,
  file: string,
  cassette: Cassette,
  shared: SharedValues,
  recorded?: ReadonlySet<string>,
): SideData {
  const summary = summarizeCassette(file, cassette)
  const cards = summary.decisions.map((d, i) => buildCard(d, cassette.decisions[i]!, shared))
  if (recorded) for (const card of cards) if (!recorded.has(card.key)) card.missed = true
  const lanes: string[] = []
  for (const card of cards) if (!lanes.includes(card.lane)) lanes.push(card.lane)
  return {
    role,
    file,
    header: describeHeader(summary),
    totals: summary.totals,
    lanes,
    maxMs: Math.max(1, ...cards.map((c) => c.ms)),
    cards,
  }
}

function describeHeader({ header: h, totals: t }: CassetteSummary): HeaderData {
  const r = h.runtime ?? {}
  const runtime = [r.agentTape ? `agent-tape ${r.agentTape}` : '']
  if (r.node) runtime.push(`node ${r.node}${r.platform ? ` (${r.platform})` : ''}`)
  const kinds = Object.entries(t.kinds).map(([kind, n]) => countKind(kind, n))
  return {
    test: h.test,
    recordedAt: h.recordedAt,
    harness: describeHarness(h.harness),
    source: describeSource(h.source),
    runtime: runtime.filter(Boolean).join(' · '),
    sdks: Object.entries(h.sdks ?? {})
      .map(([name, version]) => `${name} ${version}`)
      .join(', '),
    env: Object.keys(h.env ?? {}).join(', '),
    decisions: `${t.decisions}${kinds.length > 0 ? `: ${kinds.join(', ')}` : ''}`,
    tokens: t.tokens ? tokens(t.tokens) : '',
    cost: t.cost ? describeCost(t.cost) : '',
    ignored: h.ignore?.length ? `${h.ignore.join(', ')} (left out of every key; stored, redacted)` : '',
    time: `${t.ms} ms recorded`,
  }
}

function buildCard(d: DecisionSummary, record: DecisionRecord, shared: SharedValues): CardData {
  const card: CardData = {
    seq: d.seq,
    kind: d.kind,
    step: d.step,
    lane: d.lane ?? '',
    key: d.key,
    ms: d.ms,
    label: d.label,
    whole: { in: shared.share(record.in) },
  }
  if (record.out !== undefined) card.whole.out = shared.share(record.out)
  if (record.err) card.whole.err = record.err
  if (d.model) {
    card.model = { request: d.model.request, tools: toolNames(record.in) }
    const answer = d.model.answer
    if (answer) {
      const stream = recordedStream(asRecord(record.out).body as never)
      card.model.answer = stream
        ? { ...answer, stream: { key: stream.format.key, count: stream.items.length } }
        : answer
    }
  }
  if (d.tool) card.tool = d.tool
  if (d.env) card.env = d.env
  if (d.output !== undefined && d.output !== record.out) card.output = d.output
  if (d.error) card.error = d.error
  return card
}

/** The names of the tools a model request offers: a tool's `name`, its function's, or its type. */
function toolNames(input: unknown): string[] {
  const tools = asRecord(asRecord(input).body).tools
  if (!Array.isArray(tools)) return []
  return tools.map((tool) => {
    const t = asRecord(tool)
    const name = t.name ?? asRecord(t.function).name ?? t.type
    return typeof name === 'string' ? name : '(tool)'
  })
}

function asRecord(value: unknown): Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : {}
}
