import type { Cassette } from '@agent-tape/core/internal'
import { isModelRequest } from '@agent-tape/http/internal'
import { cassetteTotals, describeCost, priceUsage, summarizeDecision } from '@agent-tape/inspect'

/** One recording of a cassette, as a pull request's reader weighs it. */
export interface RecordingSide {
  /** Model requests. */
  steps: number
  decisions: number
  tokens: { input: number; output: number }
  /** `$0.0013`, `no price (llama3.2)`, with each model's share when several answered. */
  cost: string
  usd?: number
  /** The models that answered, in the order they first did. */
  models: string[]
  /** SDK versions seen while recording, by package name. */
  sdks: Record<string, string>
  /** The agent-tape version that recorded it. */
  agentTape?: string
  recordedAt: string
}

/** A recording's steps, tokens, cost and provenance, priced as of its recording. */
export function sideOf(cassette: Cassette): RecordingSide {
  const totals = cassetteTotals(cassette)
  const report = priceUsage(totals.usage, totals.recordedAt)
  const models: string[] = []
  for (const d of cassette.decisions) {
    if (!isModelRequest(d.kind, d.in)) continue
    const model = summarizeDecision(d).model
    const name = model?.answer?.model ?? model?.request.model
    if (name && !models.includes(name)) models.push(name)
  }
  const { header } = cassette
  return {
    steps: totals.steps,
    decisions: totals.decisions,
    tokens: { input: report.tokens.input, output: report.tokens.output },
    cost: describeCost(report),
    ...(report.usd === undefined ? {} : { usd: report.usd }),
    models,
    sdks: header.sdks ?? {},
    ...(header.runtime?.agentTape ? { agentTape: header.runtime.agentTape } : {}),
    recordedAt: header.recordedAt,
  }
}
