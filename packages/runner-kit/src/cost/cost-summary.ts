import { sumUsage } from '@agent-tape/http/internal'
import {
  type CostReport,
  describeCostDelta,
  describeUsd,
  type PricedModel,
  priceUsage,
  type RunTotals,
} from '@agent-tape/inspect/cost'
import { describeTokens, formatCount, formatUsd, modelName } from '@agent-tape/inspect/format'
import type { TapeSummaryEntry } from '../tape-summary.js'

/** What the tapes of a run cost, priced once for the summary's lines. */
export interface RunCost {
  /** The replayed decisions: what the run would have spent live, as of each recording. */
  replayed: CostReport
  /** The decisions recorded in this run: what it spent. */
  recorded: CostReport
  /** Each entry's own cost, by its place in the entries (`undefined` when it has no usage). */
  perEntry: (CostReport | undefined)[]
  /** The re-record lines: what each re-recorded tape changed against the cassette it replaced. */
  deltas: { test: string; line: string }[]
}

/** Prices every entry's decisions at its recording's prices. */
export function priceRun(entries: readonly TapeSummaryEntry[]): RunCost {
  const perEntry = entries.map((e) => (e.usage ? priceUsage(e.usage, e.recordedAt) : undefined))
  const pick = (action: TapeSummaryEntry['action']) =>
    entries.flatMap((e, i) =>
      e.action === action && perEntry[i] && !e.rerecorded?.kept ? [perEntry[i]] : [],
    )
  // A `resume` re-record spent the decisions it recorded, and replayed those it kept.
  const resumed = entries.flatMap((e) =>
    e.usage && e.rerecorded?.kept ? [{ e, kept: e.rerecorded.kept }] : [],
  )
  const spent = resumed.map(({ e, kept }) => {
    const seqs = new Set(kept.usage.map((u) => u.seq))
    return priceUsage(
      e.usage!.filter((u) => !seqs.has(u.seq)),
      e.recordedAt,
    )
  })
  const kept = resumed.map(({ kept }) => priceUsage(kept.usage, kept.recordedAt))
  const deltas = entries.flatMap((e) => {
    if (!e.rerecorded) return []
    const { before, after, kept } = e.rerecorded
    const line = describeCostDelta(tapeName(e), before, after)
    return [{ test: e.test, line: kept ? `${line}; ${describeKept(kept)}` : line }]
  })
  return {
    replayed: merge([...pick('replay'), ...kept]),
    recorded: merge([...pick('record'), ...spent]),
    perEntry,
    deltas,
  }
}

/**
 * What a `resume` re-record replayed instead of spending it again, at the prices of the
 * recording it came from: `replayed 6 decisions (1,120 tokens ≈ $0.0031), not spent again`.
 */
function describeKept(kept: RunTotals): string {
  const report = priceUsage(kept.usage, kept.recordedAt)
  const price = report.usd === undefined ? '' : ` ≈ ${formatUsd(report.usd)}`
  const n = `${formatCount(kept.decisions)} decision${kept.decisions === 1 ? '' : 's'}`
  return `replayed ${n} (${formatCount(total(report))} tokens${price}), not spent again`
}

/** The cost lines under the decision counts; none for a run whose tapes report no tokens. */
export function costLines(cost: RunCost): string[] {
  const lines: string[] = []
  const { replayed, recorded } = cost
  if (total(replayed) > 0) {
    const price = replayed.usd === undefined ? '' : ` ≈ ${formatUsd(replayed.usd)}`
    lines.push(
      `replayed ${formatCount(total(replayed))} tokens of recordings${price} that this run did not spend${details(replayed)}`,
    )
  }
  if (total(recorded) > 0) {
    const price = recorded.usd === undefined ? '' : ` ≈ ${formatUsd(recorded.usd)}`
    lines.push(
      `recorded ${formatCount(total(recorded))} tokens${price}, spent by this run${details(recorded)}`,
    )
  }
  return lines
}

/** One line per model of the run, with its tokens and price. */
export function modelLines(cost: RunCost): string[] {
  const models = merge([cost.replayed, cost.recorded]).models
  if (models.length === 0) return []
  const name = (m: PricedModel) => modelName(m)
  const width = Math.max(...models.map((m) => name(m).length))
  return models.map((m) => {
    const price = m.usd === undefined ? 'no price' : formatUsd(m.usd)
    const n = `${m.decisions} decision${m.decisions === 1 ? '' : 's'}`
    return `${name(m).padEnd(width)}  ${n}, ${describeTokens(m)}, ${price}`
  })
}

/** The tokens and cost cells of an entry's row. */
export function costCells(report: CostReport | undefined): [string, string] {
  if (!report || report.models.length === 0) return ['-', '-']
  return [formatCount(total(report)), describeUsd(report)]
}

/** `(1,500 in, 300 of them cached, 190 out; no price for llama3.2)` */
function details(report: CostReport): string {
  const parts = describeTokens(report.tokens)
    .replace(/^[\d,]+ tokens \(/, '')
    .replace(/\)$/, '')
  const unpriced = report.unpriced.length > 0 ? `; no price for ${report.unpriced.join(', ')}` : ''
  return ` (${parts}${unpriced})`
}

function total(report: CostReport): number {
  return report.tokens.input + report.tokens.output
}

/** Several reports as one: tokens and prices added up by model. */
function merge(reports: readonly CostReport[]): CostReport {
  const models = new Map<string, PricedModel>()
  let usd: number | undefined
  for (const report of reports) {
    if (report.usd !== undefined) usd = (usd ?? 0) + report.usd
    for (const m of report.models) {
      const id = `${m.api ?? ''}\u0000${m.model ?? ''}`
      const seen = models.get(id)
      if (!seen) {
        models.set(id, { ...m })
        continue
      }
      seen.decisions += m.decisions
      seen.input += m.input
      seen.output += m.output
      if (m.cached) seen.cached = (seen.cached ?? 0) + m.cached
      if (m.cacheWrite) seen.cacheWrite = (seen.cacheWrite ?? 0) + m.cacheWrite
      if (seen.usd === undefined || m.usd === undefined) delete seen.usd
      else seen.usd += m.usd
    }
  }
  const list = [...models.values()]
  return {
    tokens: sumUsage(list),
    models: list,
    ...(usd === undefined ? {} : { usd }),
    unpriced: list.filter((m) => m.usd === undefined).map(modelName),
  }
}

/** The tape's name, as its cassette file is named. */
function tapeName(entry: TapeSummaryEntry): string {
  return entry.cassettePath.replace(/^.*\//, '').replace(/\.jsonl$/, '')
}
