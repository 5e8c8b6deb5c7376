import type { DecisionPosition } from './canonical-key.js'
import type { Cassette, DecisionRecord } from './cassette-format.js'
import { decisionLabel } from './describe-decision.js'
import { replayOutcome } from './recorded-error.js'
import { ReplayIndex } from './replay-index.js'
import type { BegunDecision } from './tape-options.js'
import {
  type KeyedDecision,
  type PartContext,
  type PartEnding,
  type PartSlot,
  type PartTally,
  TapePart,
  type WireDecision,
} from './tape-part.js'
import { RecordingPart } from './tape-recording.js'

/**
 * `resume` mode: replays the cassette while the run matches it, and records from the first
 * decision that does not. Each lane switches at its own first miss (a lane is a branch of the run
 * that counts its own steps, or a process of a recorded command): from there on, every decision
 * of that lane runs live and is recorded, whether or not the cassette holds one like it, since the
 * world it acts on is no longer the recorded one. The decisions replayed before are kept in the
 * new cassette as they were recorded, in the run's order; the cassette's decisions the run did not
 * ask for are dropped. A run that matched the whole cassette writes nothing.
 */
export class ResumePart extends TapePart {
  /** It records: the run reaches the network, refuses keyless requests and writes a cassette. */
  readonly action = 'record'
  readonly keysInPlace = false
  private readonly index: ReplayIndex
  private readonly recorder: RecordingPart
  /** The lanes that switched to recording (`''` the main lane). */
  private readonly switched = new Set<string>()

  constructor(
    private readonly cassette: Cassette,
    context: PartContext,
  ) {
    super(context)
    this.index = new ReplayIndex(cassette.decisions)
    this.recorder = new RecordingPart(cassette, context)
  }

  get replayable(): readonly DecisionRecord[] {
    return this.index.decisions
  }

  /** The cassette's salt: replayed env reads compare with it, recorded ones hash with it. */
  get envSalt(): string {
    return this.recorder.envSalt
  }

  /** Replays the decision while its lane matches the cassette; records it from the lane's first miss. */
  begin(decision: KeyedDecision): BegunDecision {
    const record = this.replayed(decision, () => this.index.take(decision.key))
    if (record) return { action: 'replay', key: decision.key, record }
    return this.recorder.begin(decision)
  }

  override beginWire(wired: WireDecision): BegunDecision | undefined {
    if (this.switched.has(laneOf(wired.position))) return undefined
    const record = this.index.takeWire(wired.wire)
    if (!record) return undefined
    this.wireReplays++
    const label = () => decisionLabel(record)
    const seq = this.recorder.keep(record)
    this.context.log.note({ ...wired, key: record.key, label }, seq, 'replayed')
    return { action: 'replay', key: record.key, record }
  }

  async call<T>(decision: KeyedDecision, fn: () => T | Promise<T>): Promise<Awaited<T>> {
    const record = this.replayed(decision, () => this.index.take(decision.key))
    if (record) return replayOutcome(record) as Awaited<T>
    return this.recorder.call(decision, fn)
  }

  /** Only a lane that records holds places for later decisions; one that replays answers at once. */
  override reserve(kind: string, position: DecisionPosition): PartSlot | undefined {
    return this.switched.has(laneOf(position)) ? this.recorder.reserve(kind, position) : undefined
  }

  async finish(): Promise<PartEnding> {
    if (this.switched.size === 0 && this.index.unused().length === 0) {
      // Every decision matched (and none was recorded): the cassette stays as it is, byte for byte.
      // What diverged all the same (an environment read that drifted) fails the run, as in replay.
      const status = this.context.log.divergences.length > 0 ? 'diverged' : 'clean'
      return { status, written: false, writeSkipped: 'unchanged' }
    }
    return this.recorder.finish()
  }

  override abandon(): void {
    this.recorder.abandon()
  }

  override opened(): Cassette {
    return this.cassette
  }

  override recording(): Cassette {
    return this.recorder.recording()
  }

  override adopt(part: { recorded?: readonly DecisionRecord[]; replayed?: readonly number[] }): void {
    for (const seq of part.replayed ?? []) this.index.markUsed(seq)
    this.recorder.adopt(part)
  }

  override tally(): PartTally {
    return { ...this.recorder.tally(), inCassette: this.cassette.decisions.length }
  }

  /**
   * The recorded decision `take` gives while the decision's lane has not switched, kept in the
   * new cassette; `undefined` once it has, and at its first miss, which switches it.
   */
  private replayed(
    decision: KeyedDecision,
    take: () => DecisionRecord | undefined,
  ): DecisionRecord | undefined {
    const lane = laneOf(decision.position)
    if (this.switched.has(lane)) return undefined
    const record = take()
    if (!record) {
      this.switched.add(lane)
      return undefined
    }
    this.context.log.note(decision, this.recorder.keep(record), 'replayed')
    return record
  }
}

function laneOf(position: DecisionPosition): string {
  return position.lane ?? ''
}
