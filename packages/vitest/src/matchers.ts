import type { DecisionState, Tape } from '@agent-tape/core'
import type { MatcherResult as ExpectationResult, MatcherState } from 'vitest'

/** The tape matchers, on `expect(tape)`. */
export interface TapeMatchers<R = unknown> {
  /** No miss, no divergence and no recorded decision left unused so far (a recording passes). */
  toReplayCleanly(): R
  /** The run made `count` decisions (of `kind`, when given). */
  toHaveDecisions(count: number, kind?: string): R
  /** The run called tool `name` (exactly `times` times, when given). */
  toHaveCalledTool(name: string, times?: number): R
}

declare module 'vitest' {
  // biome-ignore lint/suspicious/noExplicitAny: the shape Vitest declares Matchers with
  interface Matchers<T = any> extends TapeMatchers<T> {}
}

function asTape(received: unknown, matcher: string): Tape {
  const tape = received as Tape | null
  if (typeof tape === 'object' && tape !== null && typeof tape.failure === 'function' && 'state' in tape) {
    return tape
  }
  throw new TypeError(
    `${matcher}() expects the tape of the test (the \`tape\` fixture of it.tape), got ${String(received)}`,
  )
}

function made(decisions: readonly DecisionState[]): DecisionState[] {
  return decisions.filter((d) => d.status !== 'unused')
}

export const tapeMatchers = {
  toReplayCleanly(this: MatcherState, received: unknown): ExpectationResult {
    const tape = asTape(received, 'toReplayCleanly')
    const state = tape.state
    const problems = state.divergences.map((d) => d.message)
    if (state.action === 'replay' && state.status === 'running' && state.unused > 0) {
      problems.push(
        `[agent-tape] ${state.unused} of ${state.recorded} recorded decisions of ${state.cassettePath} are still unused`,
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

  toHaveDecisions(this: MatcherState, received: unknown, count: number, kind?: string): ExpectationResult {
    const state = asTape(received, 'toHaveDecisions').state
    const decisions = made(state.decisions).filter((d) => kind === undefined || d.kind === kind)
    const what = kind === undefined ? 'decisions' : `${kind} decisions`
    return {
      pass: decisions.length === count,
      message: () =>
        `expected tape "${state.id}" ${this.isNot ? 'not ' : ''}to have made ${count} ${what}, it made ${decisions.length}: ${
          decisions.map((d) => `#${d.seq} ${d.label}`).join(', ') || 'none'
        }`,
      actual: decisions.length,
      expected: count,
    }
  },

  toHaveCalledTool(this: MatcherState, received: unknown, name: string, times?: number): ExpectationResult {
    const state = asTape(received, 'toHaveCalledTool').state
    const label = `tool ${JSON.stringify(name)}`
    const calls = made(state.decisions).filter((d) => d.kind === 'tool' && d.label === label).length
    const tools = [
      ...new Set(
        made(state.decisions)
          .filter((d) => d.kind === 'tool')
          .map((d) => d.label),
      ),
    ]
    const pass = times === undefined ? calls > 0 : calls === times
    const expected = times === undefined ? 'at least once' : `${times} time${times === 1 ? '' : 's'}`
    return {
      pass,
      message: () =>
        `expected tape "${state.id}" ${this.isNot ? 'not ' : ''}to have called tool "${name}" ${expected}, it was called ${calls} time${calls === 1 ? '' : 's'} (tools called: ${tools.join(', ') || 'none'})`,
    }
  },
}
