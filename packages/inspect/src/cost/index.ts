// What a recording cost, for what reads it while tests run (the runner kit's tapes, summaries and
// budgets): tokens per decision and model, and their price. It loads none of the readers for
// people (summaries, diffs, the view), which the package's main entry adds; the main entry
// exports all of this too.
export type { CostReport, PricedModel } from './cost-report.js'
export type { DecisionUsage, ModelTokens, UsageSource } from './decision-usage.js'
export { tokensByModel, usageOfDecisions } from './decision-usage.js'
export { priceDecision } from './price-table.js'
export type { RecordedUsage, UsageReader } from './recorded-usage.js'
export { readRecordedUsage } from './recorded-usage.js'
export type { RunTotals } from './run-cost.js'
export { cassetteTotals, describeCost, describeCostDelta, describeUsd, priceUsage } from './run-cost.js'
