import type { Cassette, DecisionRecord } from '@agent-tape/core/internal'
import { type ModelRequest, recordedStream, sessionToolNames } from '@agent-tape/http/internal'
import { describeCost } from '../cost/run-cost.js'
import { tokens } from '../format/numbers.js'
import { toolNames } from '../reading/conversation.js'
import { countKind, describeHarness, describeSource } from '../reading/preview.js'
import { type CassetteSummary, type DecisionSummary, summarizeCassette } from '../reading/summarize.js'
import type { CardData, HeaderData, SideData, SideRole } from './page-data.js'
import type { SharedValues } from './shared-values.js'

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
    span: Math.max(0, ...cards.map((c) => (c.at === undefined ? 0 : c.at + c.ms))),
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
  if (d.at !== undefined) card.at = d.at
  if (record.out !== undefined) card.whole.out = shared.share(record.out)
  if (record.err) card.whole.err = record.err
  if (d.model) {
    const tools = sessionToolNames(record.in) ?? toolNames(record.in)
    card.model = { request: shareLast(d.model.request, shared), tools }
    const answer = d.model.answer
    if (answer) {
      const stream = recordedStream(asRecord(record.out).body as never)
      const frames = asRecord(record.out).frames
      // A session's answer is the server's frames after the message: its events.
      card.model.answer = stream
        ? { ...answer, stream: { key: stream.format.key, count: stream.items.length } }
        : Array.isArray(frames)
          ? { ...answer, stream: { key: 'frames', count: frames.length } }
          : answer
    }
  }
  if (d.tool) card.tool = d.tool
  if (d.env) card.env = d.env
  if (d.output !== undefined && d.output !== record.out) card.output = d.output
  if (d.error) card.error = d.error
  return card
}

/**
 * The request with its last message stored once. A tool loop's last message is the tool's whole
 * result, which the page already holds (in `whole`): a reference to it costs a few bytes, where
 * a copy in every model request's card, even cut to what the card shows, was a tenth of a long
 * run's page. The page cuts it when it draws the card.
 */
function shareLast(request: ModelRequest, shared: SharedValues): ModelRequest {
  const last = request.last
  if (!last) return request
  return { ...request, last: { role: last.role, text: shared.share(last.text) as string } }
}

function asRecord(value: unknown): Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : {}
}
