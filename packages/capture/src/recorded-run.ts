import {
  type CaptureOutcome,
  type CaptureSource,
  type CassetteStore,
  openRecordingTape,
  redactUrl,
  redactUrlsIn,
  runWithTape,
  type Tape,
  toRecordedError,
} from '@agent-tape/core/internal'
import { RunJournal, recordObserved, type SpoiledJournal } from '@agent-tape/http/internal'
import type { CaptureDirectory } from './capture-directory.js'
import { CaptureDrop, type StatsBook } from './capture-stats.js'
import type { KeptQueue } from './kept-queue.js'
import type { ResolvedCaptureOptions } from './options.js'
import { createRunId, runFileName } from './run-file.js'
import { dropFor, writeRunFile } from './run-writer.js'
import type { RunsInFlight } from './runs-in-flight.js'
import { activeSpan, linkSpan, type SpanLike, traceOf } from './trace-link.js'

/** A captured run, as the code inside it sees it. */
export interface CaptureRun {
  /** The run's id (in its file name, its header and on the trace span); `''` when not recorded. */
  readonly id: string
  /** The name the app gave the run. */
  readonly name: string
  /** Whether the sample chose this run, and it is recorded. */
  readonly recorded: boolean
  /**
   * Marks the run failed, with why: with `keep: 'failed'` it is kept even though it did not throw
   * (an answer the app judged wrong, a user's report). The first reason given is kept.
   */
  fail(reason: string): void
}

/** What the runs of one capture share. */
export interface CaptureContext {
  options: ResolvedCaptureOptions
  book: StatsBook
  directory: CaptureDirectory | undefined
  /** Recorded runs not ended yet. */
  running: RunsInFlight
  /** Kept runs waiting to be written, and the one being written. */
  kept: KeptQueue
  /** The bytes the kept runs being written hold (see `maxQueuedBytes`). */
  queuedBytes: number
}

/**
 * What a kept run is taken to hold when nothing measured it (a run intercepted rather than
 * observed), against `maxQueuedBytes`.
 */
const UNMEASURED_RUN_BYTES = 64 * 1024

/** How a run ended, as its wrapper saw it. */
export type RunEnd = { value?: unknown } | { error: unknown }

// The recorded run of each open tape, for `capture.fail()` from anywhere inside the run.
const runsByTape = new WeakMap<Tape, RecordedRun>()

/** The recorded run whose code is running now, if any. */
export function recordedRunOf(tape: Tape | undefined): RecordedRun | undefined {
  return tape ? runsByTape.get(tape) : undefined
}

/**
 * One sampled run: its own tape (a recording that fails open, see `TapeOptions.failOpen`), its
 * input and outcome for the header, and what becomes of it as it ends: discarded, written, or
 * dropped for a counted reason. Nothing here throws into the app.
 */
export class RecordedRun implements CaptureRun {
  readonly recorded = true
  readonly fileName: string
  failReason: string | undefined
  private tape!: Tape
  /** What the run's requests sent and received, decided only if the run is kept. */
  private journal: RunJournal | undefined
  private input: { json: unknown } | { error: unknown } | undefined
  private inputAtEnd: (() => unknown) | undefined
  private outcome: CaptureOutcome | undefined
  /** The span active as the run started: the request's span, in a traced server. */
  private readonly span: SpanLike | undefined
  private linked = false
  private ended = false

  private constructor(
    private readonly context: CaptureContext,
    readonly name: string,
    readonly id: string,
  ) {
    this.fileName = runFileName(new Date(), name, id)
    this.span = activeSpan()
  }

  /**
   * Opens a run's tape, in the same tick (the app's code starts when it would without capture);
   * `undefined` (counted) when it cannot, and the run goes on unrecorded.
   */
  static open(context: CaptureContext, name: string): RecordedRun | undefined {
    const run = new RecordedRun(context, name, createRunId())
    const { options } = context
    try {
      run.tape = openRecordingTape({
        id: `${name} (captured run ${run.id})`,
        cassettePath: run.where(),
        store: run.store(),
        env: process.env,
        redactors: options.redactors,
        normalizers: options.normalizers,
        allowSecrets: options.allowSecrets,
        source: () => run.source(),
        failOpen: true,
      })
    } catch (error) {
      context.book.drop(dropFor(error, run))
      return undefined
    }
    if (options.observe) run.journal = new RunJournal(run.tape, options.maxBytes)
    runsByTape.set(run.tape, run)
    context.running.add(run)
    // Told as soon as the run is sure to be kept, while the request's span is still open.
    if (options.keep === 'all') run.link()
    return run
  }

  /** Runs `fn` inside the run: every boundary it crosses, however deep, is recorded into this run. */
  enter<T>(fn: () => T): T {
    return runWithTape(this.tape, fn)
  }

  fail(reason: string): void {
    this.failReason ??= String(reason)
    if (this.context.options.keep === 'failed') this.link()
  }

  /** Keeps the run's input for the header, as JSON taken now (the app may change it later). */
  setInput(input: unknown): void {
    this.readInput(() => input)
  }

  /** {@link setInput} with what `read` returns; a `read` that throws drops the run as `input`. */
  readInput(read: () => unknown): void {
    try {
      const text = JSON.stringify(read())
      this.input = text === undefined ? undefined : { json: JSON.parse(text) }
    } catch (error) {
      this.input = { error }
    }
  }

  /**
   * Reads the run's input with `read` as the run ends, however it ends (a handler's parsed body
   * is there only once its parsers ran; a run that times out ends without its handler).
   */
  readInputAtEnd(read: () => unknown): void {
    this.inputAtEnd = read
  }

  /** Notes that the run threw, as soon as it does (see {@link link}). */
  threw(): void {
    if (this.context.options.keep === 'failed') this.link()
  }

  /**
   * Ends a run that has not ended by itself (it ran past `maxRunMs`, or the capture closed),
   * as failed with why. Its code goes on untouched, outside the run.
   */
  expire(why: string): void {
    if (this.ended) return
    this.fail(why)
    this.end({})
  }

  /**
   * Ends the run: a run that succeeded with `keep: 'failed'` is discarded at once (its tape is
   * never finished, so nothing is scanned or written); a kept run is written in the background.
   */
  end(result: RunEnd): void {
    if (this.ended) return
    this.ended = true
    this.context.running.delete(this)
    this.journal?.close()
    const { book, options, kept } = this.context
    if (this.inputAtEnd) this.readInput(this.inputAtEnd)
    const failed = 'error' in result || this.failReason !== undefined
    if (failed) book.stats.failed++
    if (!failed && options.keep === 'failed') {
      book.stats.discarded++
      this.journal?.drop()
      return
    }
    this.outcome = outcomeOf(result, this.failReason)
    if (failed) this.link()
    if (this.input && 'error' in this.input) {
      const why = this.input.error instanceof Error ? this.input.error.message : String(this.input.error)
      book.drop(
        new CaptureDrop('input', {
          what: `Dropped captured run ${this.name} (${this.id})`,
          why: `its input cannot be stored as JSON (${why}), so no test could call the agent with it`,
          fix: 'Pass the agent plain data as the input of capture.run',
        }),
      )
      return
    }
    const bytes = this.journal ? this.journal.size : UNMEASURED_RUN_BYTES
    if (this.context.queuedBytes + bytes > options.maxQueuedBytes) {
      this.journal?.drop()
      book.drop(
        new CaptureDrop('backlog', {
          what: `Dropped captured run ${this.name} (${this.id})`,
          why: `the ${kept.size} kept runs waiting to be written already hold ${this.context.queuedBytes} bytes, and this one's ${bytes} would pass maxQueuedBytes (${options.maxQueuedBytes})`,
          fix: 'Raise maxQueuedBytes if the server has the memory, or give capture a faster dir or sink',
        }),
      )
      return
    }
    this.context.queuedBytes += bytes
    kept.add(() =>
      this.keep().finally(() => {
        this.context.queuedBytes -= bytes
        book.stats.pending = kept.size - 1
      }),
    )
    book.stats.pending = kept.size
  }

  /** Where the run's cassette is: its path in a `dir`, its file name for a sink. */
  private where(): string {
    const { directory } = this.context
    return directory ? directory.fileOf(this.fileName) : this.fileName
  }

  private link(): void {
    if (this.linked) return
    this.linked = true
    linkSpan(this.span, this.where())
  }

  private async keep(): Promise<void> {
    try {
      if (this.journal) {
        // After the response has gone out: the run's requests are decided now, as they went.
        await new Promise((resolve) => setImmediate(resolve))
        const spoiled = this.journal.spoiled
        if (spoiled) throw this.spoiledDrop(spoiled)
        await recordObserved(this.journal)
      }
      // Waits for answers still streaming, scans for secrets, and calls the store below.
      await this.tape.finish()
      this.context.book.stats.written++
    } catch (error) {
      this.context.book.drop(dropFor(error, this))
    }
  }

  /** Why a run whose journal is spoiled is dropped. */
  private spoiledDrop(spoiled: SpoiledJournal): CaptureDrop {
    const what = `Dropped captured run ${this.name} (${this.id})`
    if (spoiled.reason === 'max-bytes') {
      return new CaptureDrop('max-bytes', {
        what,
        why: `its requests and answers came to more than maxBytes (${this.context.options.maxBytes} bytes), and were let go as they passed the bound`,
        fix: 'Raise maxBytes if runs this large are worth keeping',
      })
    }
    if (spoiled.reason === 'failed') {
      return new CaptureDrop('internal', {
        what,
        why: `noting its request to ${redactUrl(spoiled.url)} failed (${redactUrlsIn(spoiled.error)}); the request went out as the app made it`,
        fix: 'This is a bug in agent-tape: please report it with this message',
      })
    }
    return new CaptureDrop('incomplete', {
      what,
      why: `the answer to ${redactUrl(spoiled.url)} came from a dispatcher capture could not observe, so the run cannot be recorded whole`,
      fix: 'Nothing the run did was changed; report this with the client the app sends it with',
    })
  }

  private source(): CaptureSource {
    const source: CaptureSource = { kind: 'capture', name: this.name, runId: this.id }
    if (this.input && 'json' in this.input) source.input = this.input.json
    if (this.outcome) source.outcome = this.outcome
    const trace = traceOf(this.span)
    if (trace) source.trace = trace
    return source
  }

  /** The store the tape writes through: it checks the run, then writes to the dir or the sink. */
  private store(): CassetteStore {
    return {
      read: async () => null,
      write: (_path, text) =>
        writeRunFile(
          this.context,
          { name: this.name, id: this.id, fileName: this.fileName, failed: this.outcome?.ok === false },
          text,
          this.tape.failure(),
        ),
    }
  }
}

/** The run's outcome for its header: what it returned, threw, or why the app marked it failed. */
function outcomeOf(result: RunEnd, reason: string | undefined): CaptureOutcome {
  if ('error' in result) {
    const outcome: CaptureOutcome = { ok: false, error: toRecordedError(result.error) }
    if (reason !== undefined) outcome.reason = reason
    return outcome
  }
  const value = asJson(result.value)
  const outcome: CaptureOutcome = reason === undefined ? { ok: true } : { ok: false, reason }
  if (value !== undefined) outcome.value = value
  return outcome
}

/** `value` as JSON data, or `undefined` when JSON cannot hold it (the test then asserts no value). */
function asJson(value: unknown): unknown {
  try {
    const text = JSON.stringify(value)
    return text === undefined ? undefined : JSON.parse(text)
  } catch {
    return undefined
  }
}
