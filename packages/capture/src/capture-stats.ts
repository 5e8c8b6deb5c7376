import { formatMessage, type MessageParts } from '@agent-tape/core/internal'

/**
 * Why a run that was to be kept was not: each is counted in {@link CaptureStats.dropped} and
 * logged the first time it happens.
 *
 * - `secret`: the cassette holds a secret the scan cannot redact (in a recorded answer, the
 *   run's input or its outcome); nothing was written.
 * - `max-bytes`: the cassette is larger than `maxBytes`.
 * - `incomplete`: a crossing of the run could not be recorded (it went out unrecorded), or an
 *   answer was still streaming when the run's recording had to be written.
 * - `starting`: a handler wrapper's run began before the boundary had loaded (the first tens of
 *   milliseconds after `createCapture`); it ran unrecorded. `capture.run` waits for the boundary
 *   instead, and a server that awaits `capture.ready()` before it listens drops none.
 * - `input`: the run's input cannot be stored as JSON (a cycle, a BigInt), so no test could call
 *   the agent with it.
 * - `write-error`: the directory could not be written (permissions, a full disk).
 * - `sink-error`: the sink threw or rejected.
 * - `backlog`: too many kept runs were already waiting to be written.
 * - `internal`: anything else, a bug in agent-tape (the log says what).
 */
export type DropReason =
  | 'secret'
  | 'max-bytes'
  | 'incomplete'
  | 'starting'
  | 'input'
  | 'write-error'
  | 'sink-error'
  | 'backlog'
  | 'internal'

export const DROP_REASONS: readonly DropReason[] = [
  'secret',
  'max-bytes',
  'incomplete',
  'starting',
  'input',
  'write-error',
  'sink-error',
  'backlog',
  'internal',
]

/** What a capture has done since it was created; see `capture.stats()`. */
export interface CaptureStats {
  /** Runs started (`capture.run` and the handler wrappers), sampled or not. */
  runs: number
  /** Runs recorded: those the sample chose. */
  recorded: number
  /** Recorded runs that failed: they threw, or the app marked them failed. */
  failed: number
  /** Cassettes written to the directory or accepted by the sink. */
  written: number
  /** Recorded runs not kept because they succeeded and `keep` is `'failed'`. */
  discarded: number
  /** Runs to be kept that were not, by reason. */
  dropped: Record<DropReason, number>
  /** Files removed from the directory by `maxFiles` and `maxAgeMs`. */
  removed: number
  /** Kept runs whose cassettes are still being written. */
  pending: number
}

/** A run dropped for a reason, with the message that says why (logged once per reason). */
export class CaptureDrop extends Error {
  override name = 'CaptureDrop'
  constructor(
    readonly reason: DropReason,
    readonly parts: MessageParts,
  ) {
    super(parts.why)
  }
}

/** The counters of one capture, and its log that speaks once per reason. */
export class StatsBook {
  readonly stats: CaptureStats = {
    runs: 0,
    recorded: 0,
    failed: 0,
    written: 0,
    discarded: 0,
    dropped: Object.fromEntries(DROP_REASONS.map((r) => [r, 0])) as Record<DropReason, number>,
    removed: 0,
    pending: 0,
  }
  private readonly logged = new Set<string>()

  constructor(private readonly log: (message: string) => void) {}

  /** Counts a dropped run and logs the first of each reason. */
  drop(drop: CaptureDrop): void {
    this.stats.dropped[drop.reason]++
    this.once(drop.reason, {
      ...drop.parts,
      fix: `${drop.parts.fix ?? 'See docs/capture.md'}. Later runs dropped for this reason are counted in capture.stats().dropped["${drop.reason}"], not logged`,
    })
  }

  /** Logs a message the first time its topic comes up; never throws. */
  once(topic: string, parts: MessageParts): void {
    if (this.logged.has(topic)) return
    this.logged.add(topic)
    try {
      this.log(formatMessage(parts))
    } catch {
      // A logger that throws must not reach the app either.
    }
  }

  snapshot(): CaptureStats {
    return { ...this.stats, dropped: { ...this.stats.dropped } }
  }
}
