import { appendFileSync, readFileSync } from 'node:fs'
import type { Cassette, DecisionRecord, LiveGate } from '@agent-tape/core/internal'
import { AgentTapeError } from '@agent-tape/core/runtime'
import { isModelRequest } from '@agent-tape/http/internal'
import { priceUsage, readRecordedUsage } from '@agent-tape/inspect/cost'
import { formatCount, formatUsd } from '@agent-tape/inspect/format'
import type { DriftPlan } from './drift-folder.js'

/** Tokens and dollars: an estimate, or what a request spent. */
export interface Spend {
  tokens: number
  /** `undefined` when the model has no price. */
  usd: number | undefined
}

/** A line of the ledger: a request asked to go out, or what one that went out spent. */
type LedgerLine =
  | { t: 'ask'; id: string; test: string; est: Spend }
  | { t: 'spent'; id: string; spent: Spend }

/** What the ledger says, read in order: every request's verdict, and the spending so far. */
export interface LedgerState {
  verdicts: Map<string, boolean>
  spent: { tokens: number; usd: number }
  /** Requests refused, and the tests that asked for them. */
  refused: { id: string; test: string }[]
  /** Requests let through. */
  sent: number
}

/**
 * Reads a ledger's lines in the order they were appended. Each request is let through when what
 * was spent before it (a request's estimate until its spending is known) and its own estimate
 * fit in the budget, and none was refused before it: the first refusal stops every later
 * request. Every worker reads the same lines in the same order, so they all come to the same
 * verdicts without a lock.
 */
export function readLedger(text: string, budget: NonNullable<DriftPlan['budget']>): LedgerState {
  const state: LedgerState = { verdicts: new Map(), spent: { tokens: 0, usd: 0 }, refused: [], sent: 0 }
  const counted = new Map<string, Spend>()
  let stopped = false
  for (const line of text.split('\n')) {
    if (line.trim() === '') continue
    let entry: LedgerLine
    try {
      entry = JSON.parse(line) as LedgerLine
    } catch {
      continue // A line cut short by a killed worker: it let nothing through.
    }
    if (entry.t === 'ask') {
      const fits = !stopped && fitsBudget(state.spent, entry.est, budget)
      state.verdicts.set(entry.id, fits)
      if (!fits) {
        stopped = true
        state.refused.push({ id: entry.id, test: entry.test })
        continue
      }
      state.sent++
      counted.set(entry.id, entry.est)
      add(state.spent, entry.est, 1)
    } else if (entry.t === 'spent' && counted.has(entry.id)) {
      add(state.spent, counted.get(entry.id)!, -1)
      add(state.spent, entry.spent, 1)
      counted.set(entry.id, entry.spent)
    }
  }
  return state
}

function fitsBudget(
  spent: LedgerState['spent'],
  est: Spend,
  budget: NonNullable<DriftPlan['budget']>,
): boolean {
  if (budget.tokens !== undefined && spent.tokens + est.tokens > budget.tokens) return false
  if (budget.usd !== undefined && (est.usd === undefined || spent.usd + est.usd > budget.usd)) return false
  return true
}

function add(total: LedgerState['spent'], spend: Spend, sign: 1 | -1): void {
  total.tokens += sign * spend.tokens
  total.usd += sign * (spend.usd ?? 0)
}

let asked = 0

/**
 * The live gate of a drift run's tape: each model request (a session's turn included, see
 * `BeginOptions.asksModel`) asks the ledger at `path` first, with
 * the estimate of the committed decision it repeats, and is refused with `ERR_TAPE_BUDGET` when
 * it does not fit (see {@link readLedger}); once sent, what it spent is noted. Other decisions
 * (tools, environment reads) pass.
 */
export function createSpendGate(
  path: string,
  budget: NonNullable<DriftPlan['budget']>,
  test: string,
): LiveGate {
  return (decision) => {
    if (!decision.asksModel) return {}
    const est = estimate(decision, decision.committed)
    const id = `${process.pid}.${++asked}.${Math.random().toString(36).slice(2, 8)}`
    appendFileSync(path, `${JSON.stringify({ t: 'ask', id, test, est } satisfies LedgerLine)}\n`)
    const state = readLedger(readFileSync(path, 'utf8'), budget)
    if (state.verdicts.get(id) !== true) {
      return { refused: overBudget(test, decision.step, est, state, budget) }
    }
    return {
      settled: (record: DecisionRecord) => {
        const spent = spendOf(record)
        if (spent) appendFileSync(path, `${JSON.stringify({ t: 'spent', id, spent } satisfies LedgerLine)}\n`)
      },
    }
  }
}

/**
 * What a request is expected to spend: the committed decision with its key (the same request),
 * else the committed model request at its step, else the committed run's largest one.
 */
function estimate(
  decision: { key: string; step: number; lane?: string },
  committed: Cassette | undefined,
): Spend {
  const models = committed?.decisions.filter((d) => isModelRequest(d.kind, d.in)) ?? []
  const same =
    models.find((d) => d.key === decision.key) ??
    models.find((d) => d.step === decision.step && d.lane === decision.lane)
  const spends = (same ? [same] : models).map(spendOf).filter((s): s is Spend => s !== undefined)
  if (spends.length === 0) return { tokens: 0, usd: undefined }
  return spends.reduce((a, b) => (b.tokens > a.tokens ? b : a))
}

/** The tokens of a recorded model decision, priced at today's prices. */
function spendOf(record: Pick<DecisionRecord, 'kind' | 'in' | 'out' | 'seq' | 'step'>): Spend | undefined {
  const usage = readRecordedUsage(record)
  if (!usage) return undefined
  const priced = priceUsage([{ ...usage, seq: record.seq, step: record.step }])
  return { tokens: usage.input + usage.output, usd: priced.unpriced.length > 0 ? undefined : priced.usd }
}

function overBudget(
  test: string,
  step: number,
  est: Spend,
  state: LedgerState,
  budget: NonNullable<DriftPlan['budget']>,
): AgentTapeError {
  const limits = [
    budget.tokens === undefined ? undefined : `${formatCount(budget.tokens)} tokens`,
    budget.usd === undefined ? undefined : formatUsd(budget.usd),
  ].filter(Boolean)
  const first = state.refused[0]
  const why =
    first && first.test !== test
      ? `a request of "${first.test}" did not fit before it, and the drift run sends nothing after its first refusal`
      : est.usd === undefined && budget.usd !== undefined
        ? 'the committed recording gives this request no price to hold it to the budget in dollars'
        : `${formatCount(state.spent.tokens)} tokens${budget.usd === undefined ? '' : ` (${formatUsd(state.spent.usd)})`} were spent or held, and this request is estimated at ${formatCount(est.tokens)} more${budget.usd === undefined || est.usd === undefined ? '' : ` (${formatUsd(est.usd)})`} from its committed recording`
  return new AgentTapeError('ERR_TAPE_BUDGET', {
    what: `Not sent: the model request at step ${step} of "${test}" is over the drift run's budget of ${limits.join(' and ')}`,
    why,
    fix: 'Raise --budget-usd or --budget-tokens, or run drift on fewer tests (agent-tape drift <test file>)',
  })
}
