import type { DecisionState, Tape } from '@agent-tape/core'
import { AgentTapeError, formatMessage } from '@agent-tape/core/runtime'
import { formatCount, formatUsd } from '@agent-tape/inspect/format'
import { type BudgetBreach, budgetDetails, checkBudget, type TapeBudget } from './cost/budget.js'
import { runMeasureOf } from './cost/usage-slot.js'
import { notATape } from './not-a-tape.js'

/** What a matcher returns, in the shape both Vitest's and Jest's `expect.extend` accept. */
export interface TapeMatcherResult {
  pass: boolean
  message: () => string
  actual?: unknown
  expected?: unknown
}

/**
 * The tape matchers as plain functions of `(isNot, tape, ...args)`, so every runner's
 * `expect(tape).toReplayCleanly()` says the same thing. Runners register the linked copy of
 * `matcher-link.ts`, which loads with their setup file; these load with the first tape.
 */
export const MATCHER_IMPLEMENTATIONS = {
  /** No miss, no divergence and no recorded decision left unused so far (a recording passes). */
  toReplayCleanly(_isNot: boolean, received: unknown): TapeMatcherResult {
    const tape = asTape(received, 'toReplayCleanly')
    const state = tape.state
    const problems = state.divergences.map((d) => d.message)
    if (state.action === 'replay' && state.status === 'running' && state.unused > 0) {
      problems.push(
        formatMessage({
          what: `${state.unused} of ${state.inCassette} recorded decisions of ${state.cassettePath} are still unused`,
          why: 'the run has not asked for them yet, so it stopped early or took another path',
          fix: `Assert once the agent has finished, or, if the change is intended, re-record this test: ${tape.rerecordCommand}`,
        }),
      )
    }
    const pass = problems.length === 0
    return {
      pass,
      message: () =>
        pass
          ? `expected tape "${state.id}" to diverge from ${state.cassettePath}, but it replayed cleanly`
          : problems.join('\n\n'),
    }
  },

  /** The run made `count` decisions (of `kind`, when given). */
  toHaveDecisions(isNot: boolean, received: unknown, count: number, kind?: string): TapeMatcherResult {
    const state = asTape(received, 'toHaveDecisions').state
    const decisions = made(state.decisions).filter((d) => kind === undefined || d.kind === kind)
    const what = kind === undefined ? 'decisions' : `${kind} decisions`
    return {
      pass: decisions.length === count,
      message: () =>
        `expected tape "${state.id}" ${isNot ? 'not ' : ''}to have made ${count} ${what}, it made ${decisions.length}: ${
          decisions.map((d) => `#${d.seq} ${d.label}`).join(', ') || 'none'
        }`,
      actual: decisions.length,
      expected: count,
    }
  },

  /** The run called tool `name` (exactly `times` times, when given). */
  toHaveCalledTool(isNot: boolean, received: unknown, name: string, times?: number): TapeMatcherResult {
    const state = asTape(received, 'toHaveCalledTool').state
    const label = `tool ${JSON.stringify(name)}`
    const tools = made(state.decisions).filter((d) => d.kind === 'tool')
    const calls = tools.filter((d) => d.label === label).length
    const names = [...new Set(tools.map((d) => d.label))]
    const pass = times === undefined ? calls > 0 : calls === times
    const expected = times === undefined ? 'at least once' : `${times} time${times === 1 ? '' : 's'}`
    return {
      pass,
      message: () =>
        `expected tape "${state.id}" ${isNot ? 'not ' : ''}to have called tool "${name}" ${expected}, it was called ${calls} time${calls === 1 ? '' : 's'} (tools called: ${names.join(', ') || 'none'})`,
    }
  },

  /** The run made at most `steps` model requests so far. */
  toHaveTakenAtMostSteps(_isNot: boolean, received: unknown, steps: number): TapeMatcherResult {
    const tape = asTape(received, 'toHaveTakenAtMostSteps')
    assertLimit('toHaveTakenAtMostSteps', 'steps', steps)
    return budgetMatcher(tape, 'toHaveTakenAtMostSteps', { steps }, (run) => `${run.steps} steps`)
  },

  /** The model answers of the run so far came to at most `tokens` tokens (all, or input and output apart). */
  toHaveUsedAtMostTokens(
    _isNot: boolean,
    received: unknown,
    tokens: number | { input?: number; output?: number },
  ): TapeMatcherResult {
    const tape = asTape(received, 'toHaveUsedAtMostTokens')
    if (typeof tokens === 'number') assertLimit('toHaveUsedAtMostTokens', 'tokens', tokens)
    else if (typeof tokens === 'object' && tokens !== null && (tokens.input ?? tokens.output) !== undefined) {
      if (tokens.input !== undefined) assertLimit('toHaveUsedAtMostTokens', 'tokens.input', tokens.input)
      if (tokens.output !== undefined) assertLimit('toHaveUsedAtMostTokens', 'tokens.output', tokens.output)
    } else assertLimit('toHaveUsedAtMostTokens', 'tokens', tokens)
    return budgetMatcher(tape, 'toHaveUsedAtMostTokens', { tokens }, (run) => {
      const used = run.usage.reduce((t, u) => ({ input: t.input + u.input, output: t.output + u.output }), {
        input: 0,
        output: 0,
      })
      return `${formatCount(used.input + used.output)} tokens (${formatCount(used.input)} in, ${formatCount(used.output)} out)`
    })
  },

  /** The model answers of the run so far cost at most `usd` US dollars, at the prices of their recording. */
  toHaveCostAtMost(_isNot: boolean, received: unknown, usd: number): TapeMatcherResult {
    const tape = asTape(received, 'toHaveCostAtMost')
    assertLimit('toHaveCostAtMost', 'usd', usd)
    return budgetMatcher(tape, 'toHaveCostAtMost', { usd }, (run, measure) =>
      formatUsd(measure.price(run.usage, run.recordedAt).usd ?? 0),
    )
  },
}

/**
 * A budget matcher: the breaches of `budget` fail it, with the numbers per decision. A run
 * that cannot be measured (live, or a model without a price) throws, whether negated or not.
 */
function budgetMatcher(
  tape: Tape,
  matcher: string,
  budget: TapeBudget,
  used: (run: RunUsageOf, measure: MeasureOf) => string,
): TapeMatcherResult {
  const measure = runMeasureOf(tape)
  if (!measure) {
    throw new AgentTapeError('ERR_TAPE_USAGE', {
      what: `${matcher}() cannot measure tape "${tape.id}"`,
      why: 'it measures the tape of a test opened by it.tape, and this tape was opened another way (openTape)',
      fix: "Use toHaveDecisions() and the tape's state instead",
    })
  }
  const run = measure.usage()
  const breaches = checkBudget(budget, run, measure.price)
  const unmeasurable = breaches.find((b) => b.unknown)
  if (unmeasurable) {
    throw new AgentTapeError('ERR_TAPE_USAGE', {
      what: `${matcher}() cannot measure tape "${tape.id}"`,
      why: `the run ${unmeasurable.text}`,
      fix:
        unmeasurable.show === 'usd'
          ? 'Assert its tokens with toHaveUsedAtMostTokens() instead, or give a usage reader that names a priced model'
          : 'Assert budgets in record or replay mode',
    })
  }
  const pass = breaches.length === 0
  const details = (breach: BudgetBreach | undefined) =>
    budgetDetails(
      run,
      breach?.show ?? (budget.steps !== undefined ? 'steps' : budget.usd !== undefined ? 'usd' : 'tokens'),
      measure.price,
    )
  return {
    pass,
    message: () =>
      pass
        ? [
            `expected tape "${tape.id}" to go over ${describeBudget(budget)}, it used ${used(run, measure)}:`,
            ...details(undefined),
          ].join('\n')
        : [
            `expected tape "${tape.id}" to stay within ${describeBudget(budget)}: the run ${breaches.map((b) => b.text).join(', and ')}:`,
            ...details(breaches[0]),
          ].join('\n'),
  }
}

type MeasureOf = NonNullable<ReturnType<typeof runMeasureOf>>
type RunUsageOf = ReturnType<MeasureOf['usage']>

function describeBudget(budget: TapeBudget): string {
  if (budget.steps !== undefined) return `${budget.steps} step${budget.steps === 1 ? '' : 's'}`
  if (budget.usd !== undefined) return formatUsd(budget.usd)
  const tokens = budget.tokens
  if (typeof tokens === 'number') return `${formatCount(tokens)} tokens`
  const parts = [
    tokens?.input === undefined ? '' : `${formatCount(tokens.input)} input tokens`,
    tokens?.output === undefined ? '' : `${formatCount(tokens.output)} output tokens`,
  ].filter(Boolean)
  return parts.join(' and ')
}

function assertLimit(matcher: string, name: string, value: unknown): void {
  if (typeof value === 'number' && Number.isFinite(value) && value >= 0) return
  throw new AgentTapeError('ERR_TAPE_USAGE', {
    what: `Invalid ${name} for ${matcher}()`,
    why: `it expects a number of 0 or more${name === 'tokens' ? ', or { input, output }' : ''}, got ${JSON.stringify(value) ?? String(value)}`,
    fix: `Pass a limit such as ${matcher}(${name === 'tokens' ? '20000' : name.startsWith('tokens.') ? `{ ${name.slice(7)}: 20000 }` : name === 'usd' ? '0.5' : '10'})`,
  })
}

/** The matchers' signatures on `expect(tape)`, for a runner's `Matchers` interface. */
export interface TapeMatchers<R = unknown> {
  /** No miss, no divergence and no recorded decision left unused so far (a recording passes). */
  toReplayCleanly(): R
  /** The run made `count` decisions (of `kind`, when given). */
  toHaveDecisions(count: number, kind?: string): R
  /** The run called tool `name` (exactly `times` times, when given). */
  toHaveCalledTool(name: string, times?: number): R
  /**
   * The run made at most `steps` model requests so far.
   *
   * @example
   * expect(tape).toHaveTakenAtMostSteps(8)
   */
  toHaveTakenAtMostSteps(steps: number): R
  /**
   * The model answers of the run so far came to at most `tokens` tokens: all of them, or input
   * and output apart. A replay counts the recorded answers it served.
   *
   * @example
   * expect(tape).toHaveUsedAtMostTokens({ input: 20_000, output: 2_000 })
   */
  toHaveUsedAtMostTokens(tokens: number | { input?: number; output?: number }): R
  /**
   * The model answers of the run so far cost at most `usd` US dollars, at the prices of the
   * time they were recorded. Fails to measure a model the price table has no price for.
   *
   * @example
   * expect(tape).toHaveCostAtMost(0.05)
   */
  toHaveCostAtMost(usd: number): R
}

function asTape(received: unknown, matcher: string): Tape {
  const tape = received as Tape | null
  if (typeof tape === 'object' && tape !== null && typeof tape.failure === 'function' && 'state' in tape) {
    return tape
  }
  throw notATape(matcher, received)
}

function made(decisions: readonly DecisionState[]): DecisionState[] {
  return decisions.filter((d) => d.status !== 'unused')
}
