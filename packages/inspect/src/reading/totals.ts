import type { TokenUsage } from '@agent-tape/http/internal'
import type { CostReport } from '../cost/cost-report.js'

// Types only: the view's page script is type-checked against them without loading the readers.

/** What a recording adds up to, as `show` and the view's head print it. */
export interface CassetteTotals {
  decisions: number
  /** Decisions per kind, in order of first appearance. */
  kinds: Record<string, number>
  tokens?: TokenUsage
  /** The tokens by model and their price as of the recording (present when answers report tokens). */
  cost?: CostReport
  ms: number
}
