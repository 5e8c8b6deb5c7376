// What reads cassettes for people: a decision's summary (`show`), two recordings aligned and
// compared (`diff`), the HTML view (`view`, and the views a runner writes when a replay
// diverges), and what a recording cost. Used by the CLI and by the runner kit; depends on core
// and the HTTP boundary only. No semver promise yet.
export type { CostReport, PricedModel } from './cost/cost-report.js'
export type { DecisionUsage, ModelTokens, UsageSource } from './cost/decision-usage.js'
export { tokensByModel, usageOfDecisions } from './cost/decision-usage.js'
export { priceDecision } from './cost/price-table.js'
export type { RecordedUsage, UsageReader } from './cost/recorded-usage.js'
export { readRecordedUsage } from './cost/recorded-usage.js'
export type { RunTotals } from './cost/run-cost.js'
export { cassetteTotals, describeCost, describeCostDelta, describeUsd, priceUsage } from './cost/run-cost.js'
export type { Alignable, Alignment } from './diff/align.js'
export { alignDecisions } from './diff/align.js'
export type { CassetteDiff, CostSide, DiffEntry, EntryStatus } from './diff/compare.js'
export { diffCassettes, isUnanswered } from './diff/compare.js'
export { maskVolatile } from './diff/volatile.js'
export { describeTokens, formatCount, formatUsd, modelName, tokens } from './format/numbers.js'
export type {
  ConversationMessage,
  ConversationPart,
  OfferedTool,
  RequestConversation,
} from './reading/conversation.js'
export { readConversation } from './reading/conversation.js'
export { countKind, describeHarness, describeSource, previewJson } from './reading/preview.js'
export type { CassetteSummary, DecisionSummary } from './reading/summarize.js'
export { summarizeCassette, summarizeDecision } from './reading/summarize.js'
export type { CassetteTotals } from './reading/totals.js'
export type {
  CardData,
  HeaderData,
  PageData,
  RowData,
  SideData,
  SideRole,
  Verdict,
} from './view/page-data.js'
export type { ViewInput, ViewOptions } from './view/render-page.js'
export { escapeHtml, renderCompareView, renderPage, renderRunView, scriptJson } from './view/render-page.js'
export { REF_KEY, resolveShared, SharedValues } from './view/shared-values.js'
export type { DivergedTape, WrittenView } from './view/write-views.js'
export { writeDivergenceViews } from './view/write-views.js'
