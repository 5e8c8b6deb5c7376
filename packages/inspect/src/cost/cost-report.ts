import type { TokenUsage } from '@agent-tape/http/internal'
import type { ModelTokens } from './decision-usage.js'

// Types only: the view's page script is type-checked against them without loading the price table.

/** A model's tokens with their price; `usd` is absent when the price table has none for it. */
export interface PricedModel extends ModelTokens {
  usd?: number
}

/** What some decisions cost: their tokens in all and by model, and the price of those priced. */
export interface CostReport {
  tokens: TokenUsage
  models: PricedModel[]
  /** The price of the priced models' tokens; absent when no model has a price. */
  usd?: number
  /** Models the price table has no price for (`(no model named)` when an answer named none). */
  unpriced: string[]
}
