import type { DecisionKey, DecisionPosition } from './canonical-key.js'
import type { Cassette, DecisionRecord } from './cassette-format.js'
import type { DivergenceContext } from './divergence.js'
import type { HarnessIdentity } from './harness.js'
import type { IgnorePaths } from './ignore-paths.js'
import type { KeyHasher } from './key-hasher.js'
import { runToolLive } from './live-tools.js'
import type { TapeMode } from './modes.js'
import { applyRedactors } from './redaction.js'
import type { RunLog } from './run-log.js'
import type { SecretScanner } from './secrets/index.js'
import type { BegunDecision, TapeOptions } from './tape-options.js'
import type { TapeAction, TapeState } from './tape-state.js'

/** A boundary crossing as the tape keyed it, handed to the part of the run's action. */
export interface KeyedDecision {
  kind: string
  key: DecisionKey
  /** What reports call the decision (`tool "lookup"`), read when one names it. */
  label: () => string
  position: DecisionPosition
  /** Whether it asks a model for an answer (see `BeginOptions.asksModel`): a step starts with it. */
  asksModel: boolean
  /** The input after the normalizers, before redaction: what a recording stores. */
  normalized: unknown
  /** What the key hashes: `normalized` without the fields the tape ignores (`normalized` itself without ignores). */
  keyed: unknown
  /**
   * 1-based position of the decision in this run, counting every decision the run asked for.
   * A cassette numbers its decisions with `seq` instead, counting only those it recorded.
   */
  decisionIndex: number
  /** The fingerprint of the request as sent, when its boundary gave one (see {@link Tape.beginRequest}). */
  wire?: string
  /** The place {@link TapePart.reserve} held for it, which it fills instead of taking the next one. */
  slot?: PartSlot
}

/** A place a part holds for a decision made later (see `ReservedRequest`); opaque to the tape. */
export interface PartSlot {
  release(): void
}

/** A request recognised by its fingerprint, before anything is keyed (see {@link TapePart.beginWire}). */
export interface WireDecision {
  kind: string
  wire: string
  position: DecisionPosition
  decisionIndex: number
}

/** What every part shares with its tape. */
export interface PartContext {
  options: TapeOptions
  mode: TapeMode
  divergence: DivergenceContext
  log: RunLog
  keys: KeyHasher
  secrets: SecretScanner
  /** The harness identity of this run, when the tape checks one. */
  harness: HarnessIdentity | undefined
  /** The fields keys leave out. */
  ignores: IgnorePaths
}

/** How a part ended the run. */
export interface PartEnding {
  status: Exclude<TapeState['status'], 'running'>
  written: boolean
  writeSkipped: TapeState['writeSkipped']
}

/** A part's counts for the tape's state, with the recorded decisions the run left unused. */
export type PartTally = Pick<TapeState, 'inCassette' | 'replayed' | 'recorded' | 'missed'> & {
  unused: readonly DecisionRecord[]
}

/**
 * What a tape does with each decision in one run: the part of its action, chosen once when the
 * tape opens (replay, record or passthrough). The tape keys each decision; its part answers it,
 * and says how the run ended.
 */
export abstract class TapePart {
  abstract readonly action: TapeAction
  /**
   * Whether an input that already is plain JSON may be keyed as it is, without a copy: only when
   * nothing keeps it (a recording does) and no normalizer function could change it in place.
   */
  abstract readonly keysInPlace: boolean
  /** The decisions of the cassette this part replays (none when it records or passes through). */
  abstract readonly replayable: readonly DecisionRecord[]
  /** The salt of the env hashes this run reads and writes. */
  abstract readonly envSalt: string | undefined

  /** How many requests this part answered by their fingerprint alone (see {@link beginWire}). */
  wireReplays = 0

  constructor(protected readonly context: PartContext) {}

  /** Answers a decision whose outcome the caller brings later (see {@link Tape.begin}). */
  abstract begin(decision: KeyedDecision): BegunDecision

  /**
   * Holds the next place of the run for a decision of `kind` at `position` that is made later
   * (see `ReservedRequest`); `undefined` when this part cannot (only a recording can).
   */
  reserve(_kind: string, _position: DecisionPosition): PartSlot | undefined {
    return undefined
  }

  /**
   * Answers a request by its fingerprint alone, when this part can (a replay that recorded it):
   * `undefined` sends the request down the keyed path, {@link begin}.
   */
  beginWire(_decision: WireDecision): BegunDecision | undefined {
    return undefined
  }

  /** Answers a decision whose outcome is what `fn` returns or throws. */
  abstract call<T>(decision: KeyedDecision, fn: () => T | Promise<T>): Promise<Awaited<T>>

  /** Ends the run: the checks and the write of this action. */
  abstract finish(): Promise<PartEnding>

  /**
   * Gives up the recording this part makes, if it makes one: a boundary would not perform a
   * decision the run needs (it lacks a key), and a cassette without it would replay as a miss.
   */
  abandon(): void {}

  /**
   * The cassette on disk when the tape opened: the one a replay answers from, or the one a
   * recording replaces (none for a first recording).
   */
  opened(): Cassette | undefined {
    return undefined
  }

  /** The run so far as a cassette, when this part can tell it apart from a recording (a replay). */
  run(): Cassette | undefined {
    return undefined
  }

  /** The complete decisions of a recording so far (see {@link Tape.completedRecording}). */
  recording(): Cassette | undefined {
    return undefined
  }

  /** What other processes of the run did in lanes of their own (see `TapeInternals.adopt`). */
  adopt(_part: { recorded?: readonly DecisionRecord[]; replayed?: readonly number[] }): void {}

  tally(): PartTally {
    return { inCassette: 0, replayed: 0, recorded: 0, missed: 0, unused: [] }
  }

  /**
   * `live-tools`: runs a recorded tool for real (`fn`) and compares its result with the
   * recording. A drift fails the run; the caller goes on with the recorded result, so that every
   * drifted tool of the run is reported and the model decisions after it still replay.
   */
  async checkLive(record: DecisionRecord, fn: () => unknown): Promise<void> {
    const { divergence, options, log } = this.context
    const drift = await runToolLive(record, fn, {
      ...divergence,
      redact: (value) => this.context.secrets.redactForReading(value),
      normalizers: options.normalizers ?? [],
      decisions: this.replayable,
    })
    if (drift) log.drift(drift)
  }

  /** An input as a cassette or a report may show it: secrets and redacted fields replaced. */
  protected redact(input: unknown): unknown {
    const { secrets, options } = this.context
    return applyRedactors(secrets.redactJson(input), options.redactors ?? [])
  }
}
