import type { Tape } from '@agent-tape/core'
import type { CostReport, DecisionUsage } from '@agent-tape/inspect/cost'
import type { RunUsage } from './tape-usage.js'

/**
 * How the budget matchers measure a tape. They load with a runner's setup file, before the
 * codecs' readers and the price table, which the first tape loads (decision 0016): the tape's
 * opening leaves its measure here, on `globalThis`, so every copy of the runner kit in a worker
 * (the setup file's and the test file's) finds it.
 */
export interface RunMeasure {
  usage(): RunUsage
  price(usage: readonly DecisionUsage[], at?: string): CostReport
}

const SLOT = Symbol.for('agent-tape.runner-kit.run-measures')

type Holder = { [SLOT]?: WeakMap<Tape, RunMeasure> }

export function provideRunMeasure(tape: Tape, measure: RunMeasure): void {
  const holder = globalThis as Holder
  holder[SLOT] ??= new WeakMap()
  holder[SLOT].set(tape, measure)
}

export function runMeasureOf(tape: Tape): RunMeasure | undefined {
  return (globalThis as Holder)[SLOT]?.get(tape)
}
