import { AgentTapeError } from '@agent-tape/core/runtime'
import type { CostReport, DecisionUsage } from '@agent-tape/inspect/cost'
import { formatCount, formatUsd } from '@agent-tape/inspect/format'
import type { RunUsage } from './tape-usage.js'

/**
 * The most a tape may take: model requests (`steps`), tokens (all, or input and output apart),
 * and US dollars at the prices of the recording. Every limit is optional.
 *
 * @example
 * { steps: 8, tokens: { input: 20_000, output: 2_000 }, usd: 0.05 }
 */
export interface TapeBudget {
  steps?: number
  tokens?: number | { input?: number; output?: number }
  usd?: number
}

/** One limit a run went over, or could not be checked against. */
export interface BudgetBreach {
  /** `took 9 steps, over the budget of 7`. */
  text: string
  /** Which numbers explain it: the steps, or the tokens and their price per decision. */
  show: 'steps' | 'tokens' | 'usd'
  /** The run cannot be held to the limit at all: its tokens or their price are not known. */
  unknown?: true
}

type Price = (usage: readonly DecisionUsage[], at?: string) => CostReport

/** The limits of `budget` that the run went over, or cannot be held to (tokens of a live run, a model without a price). */
export function checkBudget(budget: TapeBudget, run: RunUsage, price: Price): BudgetBreach[] {
  const breaches: BudgetBreach[] = []
  if (budget.steps !== undefined && run.steps > budget.steps)
    breaches.push({
      text: `took ${run.steps} step${run.steps === 1 ? '' : 's'}, over the budget of ${budget.steps}`,
      show: 'steps',
    })
  const tokens = budget.tokens
  if (tokens !== undefined || budget.usd !== undefined) {
    const unknown = unknownTokens(run)
    if (unknown) return [...breaches, { text: unknown, show: 'tokens', unknown: true }]
  }
  const used = sum(run.usage)
  const limits: [string, number | undefined, number][] =
    typeof tokens === 'number' || tokens === undefined
      ? [['tokens', tokens, used.input + used.output]]
      : [
          ['input tokens', tokens.input, used.input],
          ['output tokens', tokens.output, used.output],
        ]
  for (const [what, limit, n] of limits) {
    if (limit !== undefined && n > limit)
      breaches.push({
        text: `used ${formatCount(n)} ${what}, over the budget of ${formatCount(limit)}`,
        show: 'tokens',
      })
  }
  if (budget.usd !== undefined) {
    const cost = price(run.usage, run.recordedAt)
    if (cost.unpriced.length > 0)
      breaches.push({
        text: `cannot be held to a budget of ${formatUsd(budget.usd)}: the price table has no price for ${cost.unpriced.join(', ')}`,
        show: 'usd',
        unknown: true,
      })
    else if ((cost.usd ?? 0) > budget.usd)
      breaches.push({
        text: `cost ${formatUsd(cost.usd ?? 0)}, over the budget of ${formatUsd(budget.usd)}`,
        show: 'usd',
      })
  }
  return breaches
}

/** Why the run's tokens are not known, when they are not: a live run keeps no answers. */
export function unknownTokens(run: RunUsage): string | undefined {
  return run.action === 'passthrough'
    ? 'has no known tokens: it ran live (mode live), and a live run keeps no answers to count them from'
    : undefined
}

/**
 * The numbers behind a breach, one line per decision: the model requests for steps, their
 * tokens (and price, for a cost) otherwise.
 */
export function budgetDetails(run: RunUsage, show: BudgetBreach['show'], price: Price): string[] {
  if (show === 'steps') {
    return run.stepDecisions.map((d, i) => `  step ${i + 1}: #${d.seq} ${d.label}`)
  }
  const usage = run.usage
  if (usage.length === 0) return []
  const lines = usage.map((u) => {
    const label = run.labels.get(u.seq) ?? `decision #${u.seq}`
    const cached = u.cached ? ` (${formatCount(u.cached)} cached)` : ''
    const tokens = `${formatCount(u.input)} in${cached}, ${formatCount(u.output)} out`
    if (show !== 'usd') return `  #${u.seq} ${label}: ${tokens}`
    const cost = price([u], run.recordedAt)
    return `  #${u.seq} ${label}: ${tokens}, ${cost.usd === undefined ? 'no price' : formatUsd(cost.usd)}`
  })
  const total = sum(usage)
  lines.push(`  in all: ${formatCount(total.input)} in, ${formatCount(total.output)} out`)
  return lines
}

function sum(usage: readonly DecisionUsage[]): { input: number; output: number } {
  return usage.reduce((t, u) => ({ input: t.input + u.input, output: t.output + u.output }), {
    input: 0,
    output: 0,
  })
}

/**
 * The failure of a tape that went over its configured budget (`ERR_TAPE_BUDGET`), with the
 * numbers per decision; `undefined` within it. A live run's tokens are not checked.
 */
export function budgetFailure(
  budget: TapeBudget,
  tape: { id: string; cassettePath: string; action: string },
  run: RunUsage,
  price: Price,
): AgentTapeError | undefined {
  const breaches = checkBudget(budget, run, price).filter((b) => !b.unknown || b.show === 'usd')
  if (breaches.length === 0) return undefined
  const action = tape.action === 'record' ? 'recorded' : 'replayed'
  return new AgentTapeError('ERR_TAPE_BUDGET', {
    what: `Tape "${tape.id}" went over its budget`,
    why: `the run it ${action} ${breaches.map((b) => b.text).join(', and ')}`,
    fix: 'If the agent is meant to take that much, raise budget in the agentTape options; otherwise find what made it take more (agent-tape diff against the committed cassette shows it)',
    details: [`  cassette  ${tape.cassettePath}`, '', ...budgetDetails(run, breaches[0]!.show, price)],
  })
}
