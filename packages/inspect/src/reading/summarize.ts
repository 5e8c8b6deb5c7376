import type { Cassette, CassetteHeader, DecisionRecord, RecordedError } from '@agent-tape/core/internal'
import { isRecordedResponse } from '@agent-tape/http'
import {
  describeHttpDecision,
  jsonRpcOutcome,
  type ModelAnswer,
  type ModelRequest,
  readModelAnswer,
  readModelRequest,
  readSessionDecision,
  sumUsage,
} from '@agent-tape/http/internal'
import { usageOfDecisions } from '../cost/decision-usage.js'
import { readRecordedUsage } from '../cost/recorded-usage.js'
import { priceUsage } from '../cost/run-cost.js'
import type { CassetteTotals } from './totals.js'

/** One decision of a run, read for people: what was asked and what came back. */
export interface DecisionSummary {
  seq: number
  kind: string
  step: number
  lane?: string
  key: string
  ms: number
  /** When the call began, in milliseconds from the recording's start (absent in older cassettes). */
  at?: number
  /** `model request (gpt-4o)`, `tool "search"`, `env read [HOME]`, … */
  label: string
  model?: { request: ModelRequest; answer?: ModelAnswer }
  tool?: { name: string; args: unknown }
  /** Env reads: each key with the hash of its value, `null` when unset. */
  env?: Record<string, string | null>
  input?: unknown
  output?: unknown
  error?: RecordedError
}

export interface CassetteSummary {
  file: string
  header: CassetteHeader
  decisions: DecisionSummary[]
  totals: CassetteTotals
}

export function summarizeCassette(file: string, cassette: Cassette): CassetteSummary {
  const decisions = cassette.decisions.map(summarizeDecision)
  const kinds: Record<string, number> = {}
  for (const d of decisions) kinds[d.kind] = (kinds[d.kind] ?? 0) + 1
  // A model request's tokens, and a realtime session's message's.
  const usages = decisions.map((d) => d.model?.answer?.usage)
  const totals: CassetteSummary['totals'] = {
    decisions: decisions.length,
    kinds,
    ms: decisions.reduce((sum, d) => sum + d.ms, 0),
  }
  if (usages.some((u) => u !== undefined)) {
    totals.tokens = sumUsage(usages)
    totals.cost = priceUsage(
      usageOfDecisions(cassette.decisions, readRecordedUsage),
      cassette.header.recordedAt,
    )
  }
  return { file, header: cassette.header, decisions, totals }
}

export function summarizeDecision(d: DecisionRecord): DecisionSummary {
  const summary: DecisionSummary = {
    seq: d.seq,
    kind: d.kind,
    step: d.step,
    key: d.key,
    ms: d.ms,
    label: describeHttpDecision(d.kind, d.in),
  }
  if (d.lane !== undefined) summary.lane = d.lane
  if (d.at !== undefined) summary.at = d.at
  const input = asRecord(d.in)
  // A realtime session's message reads like a model request: its answer, its tool calls.
  const session = d.kind === 'websocket' ? readSessionDecision(d.in, d.out) : undefined
  if (d.kind === 'llm') {
    const answer = readModelAnswer(d.in, d.out)
    summary.model = answer ? { request: readModelRequest(d.in), answer } : { request: readModelRequest(d.in) }
    if (!answer && d.out !== undefined) summary.output = d.out
  } else if (session) {
    summary.model = session
  } else if (d.kind === 'tool' && typeof input.name === 'string') {
    const args = Array.isArray(input.args) && input.args.length === 1 ? input.args[0] : input.args
    summary.tool = { name: input.name, args }
    if (d.out !== undefined) summary.output = d.out
  } else if (d.kind === 'mcp' && input.method === 'tools/call') {
    // An MCP tool call reads like any tool call: the tool, its arguments, its result.
    const params = asRecord(input.params)
    summary.tool = { name: String(params.name), args: params.arguments }
    // Taped at the HTTP level, the output is the response: show the tool's result in it.
    const out = isRecordedResponse(d.out) ? jsonRpcOutcome(d.out).result : d.out
    if (out !== undefined) summary.output = out
  } else if (d.kind === 'env' && Array.isArray(input.keys)) {
    const out = asRecord(d.out)
    summary.env = Object.fromEntries(
      input.keys.map((k) => [
        String(k),
        typeof out[String(k)] === 'string' ? (out[String(k)] as string) : null,
      ]),
    )
  } else {
    summary.input = d.in
    if (d.out !== undefined) summary.output = d.out
  }
  if (d.err) summary.error = d.err
  return summary
}

function asRecord(value: unknown): Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : {}
}
