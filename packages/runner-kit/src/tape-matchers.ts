import type { DecisionState, Tape } from '@agent-tape/core'
import { formatMessage } from '@agent-tape/core/context'

/** What a matcher returns, in the shape both Vitest's and Jest's `expect.extend` accept. */
export interface TapeMatcherResult {
  pass: boolean
  message: () => string
  actual?: unknown
  expected?: unknown
}

/**
 * The tape matchers as plain functions of `(isNot, tape, ...args)`, so every runner's
 * `expect(tape).toReplayCleanly()` says the same thing.
 *
 * @example
 * expect.extend({ toReplayCleanly(received) { return TAPE_MATCHERS.toReplayCleanly(this.isNot, received) } })
 */
export const TAPE_MATCHERS = {
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
}

/** The matchers' signatures on `expect(tape)`, for a runner's `Matchers` interface. */
export interface TapeMatchers<R = unknown> {
  /** No miss, no divergence and no recorded decision left unused so far (a recording passes). */
  toReplayCleanly(): R
  /** The run made `count` decisions (of `kind`, when given). */
  toHaveDecisions(count: number, kind?: string): R
  /** The run called tool `name` (exactly `times` times, when given). */
  toHaveCalledTool(name: string, times?: number): R
}

function asTape(received: unknown, matcher: string): Tape {
  const tape = received as Tape | null
  if (typeof tape === 'object' && tape !== null && typeof tape.failure === 'function' && 'state' in tape) {
    return tape
  }
  throw new TypeError(
    `${matcher}() expects the tape of the test (the \`tape\` of it.tape), got ${String(received)}`,
  )
}

function made(decisions: readonly DecisionState[]): DecisionState[] {
  return decisions.filter((d) => d.status !== 'unused')
}
