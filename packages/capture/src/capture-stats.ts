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
 * - `backlog`: the kept runs waiting to be written already held `maxQueuedBytes`.
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

/** How often drops of one reason after the first are logged, as counts. */
const DROP_LOG_INTERVAL_MS = 60_000

/**
 * The counters of one capture, and its log: the first drop of each reason in full, the later
 * ones as counts at most once a minute (and on `close()`), so that a burst is seen as it goes on
 * without a line per run.
 */
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
  /** Drops since the last line about their reason, and when that line was. */
  private readonly unlogged = new Map<DropReason, { count: number; since: number }>()

  constructor(
    private readonly log: (message: string) => void,
    private readonly intervalMs = DROP_LOG_INTERVAL_MS,
  ) {}

  /** Counts a dropped run; logs the first of each reason, and the later ones as counts. */
  drop(drop: CaptureDrop): void {
    const { reason } = drop
    this.stats.dropped[reason]++
    if (!this.logged.has(reason)) {
      this.once(reason, {
        ...drop.parts,
        fix: `${drop.parts.fix ?? 'See docs/capture.md'}. Later runs dropped for this reason are counted in capture.stats().dropped["${reason}"], and logged as counts at most once a minute`,
      })
      this.unlogged.set(reason, { count: 0, since: performance.now() })
      return
    }
    const pending = this.unlogged.get(reason)!
    pending.count++
    if (performance.now() - pending.since >= this.intervalMs) this.logCount(reason, pending)
  }

  /** Logs the drops not logged yet, by reason (as the capture closes). */
  summarize(): void {
    for (const [reason, pending] of this.unlogged) if (pending.count > 0) this.logCount(reason, pending)
  }

  /** Logs a message about `topic`, every time; never throws. */
  note(topic: string, parts: MessageParts): void {
    this.logged.add(topic)
    this.write(parts)
  }

  private logCount(reason: DropReason, pending: { count: number; since: number }): void {
    const seconds = Math.max(1, Math.round((performance.now() - pending.since) / 1000))
    this.write({
      what: `Dropped ${pending.count} more captured run${pending.count === 1 ? '' : 's'} (${reason}) in the last ${seconds} s`,
      why: `${this.stats.dropped[reason]} dropped for this reason since the capture started; the first was logged with why`,
      fix: `See docs/capture.md, "${reason}"; the counts are in capture.stats().dropped["${reason}"]`,
    })
    pending.count = 0
    pending.since = performance.now()
  }

  /** Logs a message the first time its topic comes up; never throws. */
  once(topic: string, parts: MessageParts): void {
    if (this.logged.has(topic)) return
    this.logged.add(topic)
    this.write(parts)
  }

  private write(parts: MessageParts): void {
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
