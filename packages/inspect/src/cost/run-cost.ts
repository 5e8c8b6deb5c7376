import type { Cassette } from '@agent-tape/core/internal'
import { isModelRequest, sumUsage } from '@agent-tape/http/internal'
import { formatCount, formatUsd, modelName } from '../format/numbers.js'
import type { CostReport, PricedModel } from './cost-report.js'
import { type DecisionUsage, tokensByModel, usageOfDecisions } from './decision-usage.js'
import { priceDecision } from './price-table.js'
import { readRecordedUsage, type UsageReader } from './recorded-usage.js'

/** Prices each decision alone (see {@link priceDecision}), at the prices of `at`, and adds them up by model. */
export function priceUsage(usages: readonly DecisionUsage[], at?: string): CostReport {
  const priced = usages.map((u) => ({ usage: u, usd: priceDecision(u, at) }))
  const models: PricedModel[] = tokensByModel(usages).map((m) => {
    const own = priced.filter(({ usage }) => usage.model === m.model && usage.api === m.api)
    if (own.some((p) => p.usd === undefined)) return m
    return { ...m, usd: own.reduce((sum, p) => sum + (p.usd ?? 0), 0) }
  })
  const withPrice = models.filter((m) => m.usd !== undefined)
  const report: CostReport = {
    tokens: sumUsage(usages),
    models,
    unpriced: models.filter((m) => m.usd === undefined).map(modelName),
  }
  if (withPrice.length > 0) report.usd = withPrice.reduce((sum, m) => sum + (m.usd ?? 0), 0)
  return report
}

/** What a recording, or a run, amounts to: its decisions, its steps, its tokens, and when it was priced. */
export interface RunTotals {
  decisions: number
  /** Model requests. */
  steps: number
  usage: DecisionUsage[]
  /** The time whose prices apply (the recording's). */
  recordedAt?: string
}

/** The totals of a cassette, priced as of its recording. */
export function cassetteTotals(cassette: Cassette, reader: UsageReader = readRecordedUsage): RunTotals {
  return {
    decisions: cassette.decisions.length,
    steps: cassette.decisions.filter((d) => isModelRequest(d.kind, d.in)).length,
    usage: usageOfDecisions(cassette.decisions, reader),
    recordedAt: cassette.header.recordedAt,
  }
}

/**
 * What a re-record changed, on one line:
 * `issue-412: 7 → 9 decisions, 1,152 → 1,690 tokens (+47%), $0.004 → $0.006`.
 */
export function describeCostDelta(name: string, before: RunTotals, after: RunTotals): string {
  const a = priceUsage(before.usage, before.recordedAt)
  const b = priceUsage(after.usage, after.recordedAt)
  const tokensA = a.tokens.input + a.tokens.output
  const tokensB = b.tokens.input + b.tokens.output
  const parts = [
    `${formatCount(before.decisions)} → ${formatCount(after.decisions)} decisions`,
    `${formatCount(tokensA)} → ${formatCount(tokensB)} tokens${percent(tokensA, tokensB)}`,
  ]
  parts.push(`${describeUsd(a)} → ${describeUsd(b)}`)
  return `${name}: ${parts.join(', ')}`
}

/** `$0.41`, or `no price (llama3.2)`, or `$0.41 + no price for llama3.2`. */
export function describeUsd(report: CostReport): string {
  const unpriced = report.unpriced.join(', ')
  if (report.usd === undefined) return report.models.length === 0 ? '$0' : `no price (${unpriced})`
  return report.unpriced.length > 0
    ? `${formatUsd(report.usd)} + no price for ${unpriced}`
    : formatUsd(report.usd)
}

/** A cost with its models: `$0.0031 (gpt-4o $0.0029, claude-sonnet-4-5 $0.0002)`; one model is not repeated. */
export function describeCost(report: CostReport): string {
  const total = describeUsd(report)
  if (report.models.length < 2) return total
  const each = report.models.map(
    (m) => `${modelName(m)} ${m.usd === undefined ? 'no price' : formatUsd(m.usd)}`,
  )
  return `${total} (${each.join(', ')})`
}

function percent(before: number, after: number): string {
  if (before === 0 || before === after) return ''
  const change = Math.round(((after - before) / before) * 100)
  return ` (${change > 0 ? '+' : ''}${change}%)`
}
