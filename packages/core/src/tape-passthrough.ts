import type { DecisionRecord } from './cassette-format.js'
import type { BegunDecision } from './tape-options.js'
import { type KeyedDecision, type PartEnding, TapePart } from './tape-part.js'

/**
 * `live` mode: every boundary runs for real, and nothing is recorded or replayed. Decisions are
 * still keyed and listed on the state, so matchers see what the run did.
 */
export class PassthroughPart extends TapePart {
  readonly action = 'passthrough'
  readonly keysInPlace = false
  readonly replayable: readonly DecisionRecord[] = []
  readonly envSalt = undefined

  begin(decision: KeyedDecision): Extract<BegunDecision, { action: 'passthrough' }> {
    this.context.log.note(decision, decision.decisionIndex, 'passthrough')
    return { action: 'passthrough', key: decision.key }
  }

  async call<T>(decision: KeyedDecision, fn: () => T | Promise<T>): Promise<Awaited<T>> {
    this.begin(decision)
    return await fn()
  }

  async finish(): Promise<PartEnding> {
    return { status: 'passthrough', written: false, writeSkipped: 'passthrough' }
  }
}
