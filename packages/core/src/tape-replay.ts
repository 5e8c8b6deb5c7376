import type { DecisionKey } from './canonical-key.js'
import type { Cassette, DecisionRecord } from './cassette-format.js'
import { renumbered } from './cassette-inputs.js'
import { createHeader } from './cassette-line.js'
import { decisionLabel, describePosition } from './describe-decision.js'
import { createDivergence, explainMiss, type LaneProgress, ReplayMiss } from './divergence.js'
import { compareHarness } from './harness.js'
import { bytesChangedForm } from './json-bytes.js'
import { LIVE_KINDS } from './live-tools.js'
import { replayOutcome } from './recorded-error.js'
import { ReplayIndex } from './replay-index.js'
import { checkRun } from './run-checks.js'
import type { BegunDecision } from './tape-options.js'
import {
  type KeyedDecision,
  type PartContext,
  type PartEnding,
  type PartTally,
  TapePart,
  type WireDecision,
} from './tape-part.js'

const USE_LANES =
  "Run each concurrent sub-agent in its own lane, tape.lane('researcher', () => research(topic)), and re-record."

/**
 * Replays a cassette: each decision is answered by the recorded one with its key (the Nth
 * identical request by the Nth recording), and one that was never recorded is a miss, thrown
 * to the caller and kept on the run. As the run ends, recorded decisions it never asked for and
 * a changed harness diverge. In `live-tools` mode tools also run for real and are compared.
 */
export class ReplayPart extends TapePart {
  readonly action = 'replay'
  private readonly index: ReplayIndex
  private readonly misses: ReplayMiss[] = []
  /** The redacted input of each miss, by its position in the run. */
  private readonly missedInputs = new Map<number, unknown>()

  constructor(
    private readonly cassette: Cassette,
    context: PartContext,
  ) {
    super(context)
    this.index = new ReplayIndex(cassette.decisions)
  }

  /** A replay only keys its inputs: no copy, unless a normalizer function could change one in place. */
  get keysInPlace(): boolean {
    return !(this.context.options.normalizers ?? []).some((rule) => 'apply' in rule)
  }

  get replayable(): readonly DecisionRecord[] {
    return this.index.decisions
  }

  get envSalt(): string | undefined {
    return this.cassette.header.envSalt
  }

  /** Takes the recorded decision with this key; throws a {@link ReplayMiss} when there is none. */
  begin(decision: KeyedDecision): Extract<BegunDecision, { action: 'replay' }> {
    const record = this.index.take(decision.key)
    if (!record) throw this.miss(decision)
    this.context.log.note(decision, record.seq, 'replayed')
    return { action: 'replay', key: decision.key, record }
  }

  /**
   * Takes the recorded decision of a request with this fingerprint, under its recorded key,
   * without keying the request; `undefined` sends it down the keyed path (see
   * {@link ReplayIndex.takeWire}). Its label is read from the recorded input.
   */
  override beginWire(wired: WireDecision): Extract<BegunDecision, { action: 'replay' }> | undefined {
    const record = this.index.takeWire(wired.wire)
    if (!record) return undefined
    this.wireReplays++
    // Read when the run is reported, not on the way of the request.
    const label = () => decisionLabel(record)
    this.context.log.note({ ...wired, key: record.key, label }, record.seq, 'replayed')
    return { action: 'replay', key: record.key, record }
  }

  async call<T>(decision: KeyedDecision, fn: () => T | Promise<T>): Promise<Awaited<T>> {
    const { record } = this.begin(decision)
    if (this.context.mode === 'live-tools' && LIVE_KINDS.has(decision.kind)) await this.checkLive(record, fn)
    return replayOutcome(record) as Awaited<T>
  }

  async finish(): Promise<PartEnding> {
    const { log, options, divergence } = this.context
    for (const unused of checkRun(this.index, divergence, options.failOnUnused !== false)) log.diverge(unused)
    this.checkHarness()
    return {
      status: log.divergences.length > 0 ? 'diverged' : 'clean',
      written: false,
      writeSkipped: 'replay',
    }
  }

  /**
   * The decisions this run asked for, in order: a replayed one as recorded, a miss with its
   * input only. Numbered in the run's order, under the recording's header with this run's
   * time, runtime and harness.
   */
  override run(): Cassette {
    const replayed = new Map(this.index.decisions.map((d) => [d.seq, d]))
    const decisions: DecisionRecord[] = []
    for (const state of this.context.log.decisions) {
      const seq = decisions.length + 1
      const record = state.status === 'replayed' ? replayed.get(state.seq) : undefined
      if (record) decisions.push(renumbered(record, seq))
      else if (state.status === 'missed') {
        const { key, kind, step, lane } = state
        const input = this.missedInputs.get(state.seq)
        decisions.push({
          seq,
          key: key as DecisionKey,
          kind,
          step,
          ...(lane === undefined ? {} : { lane }),
          ms: 0,
          in: input,
        })
      }
    }
    const recorded = this.cassette.header
    // Written in the current format, whatever the recording's, at this run's time and runtime.
    const header = createHeader({ ...recorded, harness: this.context.harness ?? recorded.harness })
    return { header, decisions }
  }

  override adopt(part: { replayed?: readonly number[] }): void {
    for (const seq of part.replayed ?? []) this.index.markUsed(seq)
  }

  override tally(): PartTally {
    return {
      inCassette: this.cassette.decisions.length,
      replayed: this.index.consumed,
      recorded: 0,
      missed: this.misses.length,
      unused: this.index.unused(),
    }
  }

  override opened(): Cassette {
    return this.cassette
  }

  /** The miss of a decision that was never recorded, with the nearest recorded one and a diff. */
  private miss(decision: KeyedDecision): ReplayMiss {
    const { kind, key, decisionIndex, position } = decision
    const label = decision.label()
    const input = this.redact(decision.normalized)
    const moved = this.movedFrom(decision)
    const nearest = moved ?? this.index.nearest(kind, position.step, position.lane, input)
    const details = explainMiss(
      {
        kind,
        key,
        label,
        decisionIndex,
        ...position,
        total: this.index.total,
        replayedBefore: this.index.consumed,
        ...this.laneProgress(position.lane ?? ''),
      },
      // What the key ignores is no difference: the diff leaves it out on both sides.
      this.context.ignores.apply(kind, input).input,
      nearest && { ...nearest, in: this.context.ignores.apply(kind, nearest.in).input },
    )
    if (moved) {
      details.hint = `this very request was recorded at ${describePosition(moved.step, moved.lane)}, not ${describePosition(position.step, position.lane)}: concurrent branches took their step numbers in another order than while recording. ${USE_LANES}`
    } else if (nearest && bytesChangedForm(nearest.in, input)) {
      details.hint = `the recorded input holds bytes as a list of numbers ({"type":"Buffer","data":[…]}), as agent-tape wrote them before it stored bytes as base64 ({"$bytes":"…"}), and bytes are keyed in the new form: re-record this test once.`
    } else if (nearest && kind === 'llm' && this.cassette.header.overlapped === true) {
      details.hint = `model requests overlapped while this cassette was recorded, so the nearest recorded request (#${nearest.seq}) may belong to another concurrent branch. ${USE_LANES}`
    }
    const error = new ReplayMiss(details, this.context.divergence)
    this.misses.push(error)
    this.missedInputs.set(decisionIndex, input)
    this.context.log.diverge(error)
    this.context.log.note(decision, decisionIndex, 'missed')
    return error
  }

  /**
   * The miss's place in its lane, when lanes tell more than the run's count: the cassette's
   * decisions are in several lanes, or the miss is in a lane it does not have.
   */
  private laneProgress(lane: string): { inLane?: LaneProgress } {
    const lanes = new Set(this.cassette.decisions.map((d) => d.lane ?? ''))
    if (lanes.size <= 1 && (lanes.size === 0 || lanes.has(lane))) return {}
    const asked = this.context.log.decisions.filter((d) => (d.lane ?? '') === lane).length
    return {
      inLane: {
        lane,
        index: asked + 1,
        total: this.cassette.decisions.filter((d) => (d.lane ?? '') === lane).length,
        replayedBefore: this.index.consumedIn(lane),
        lanes: lanes.size,
        shared: this.context.options.lane !== undefined,
      },
    }
  }

  /**
   * The same request, recorded at another step of its lane and not replayed yet: concurrent
   * branches took their steps in another order than while recording.
   */
  private movedFrom({ kind, keyed, position }: KeyedDecision): DecisionRecord | undefined {
    return this.index
      .unused()
      .find(
        (d) =>
          d.kind === kind &&
          d.lane === position.lane &&
          d.step !== position.step &&
          d.key ===
            this.context.keys.key(
              kind,
              keyed,
              d.lane === undefined ? { step: d.step } : { step: d.step, lane: d.lane },
            ),
      )
  }

  /** A harness other than the recording's: a divergence when strict, a warning otherwise. */
  private checkHarness(): void {
    const { options, harness, log, divergence } = this.context
    const provider = options.harness
    if (!provider || !harness) return
    const comparison = compareHarness(this.cassette.header.harness, harness)
    if (comparison.matches) {
      if (comparison.note && provider.paths?.length) log.warnings.push(comparison.note)
      return
    }
    const mismatch = createDivergence('ERR_TAPE_HARNESS', {
      what: 'Harness mismatch',
      why: `this cassette was recorded under a different agent harness: ${comparison.note}`,
      fix: `Re-record this test if the recording no longer describes the code path: ${divergence.rerecordCommand}`,
      details: [`  cassette  ${divergence.cassettePath}`],
    })
    if (provider.strict) log.diverge(mismatch)
    else log.warnings.push(mismatch.message)
  }
}
