import type { IncomingMessage, ServerResponse } from 'node:http'
import { currentTape, prepareTapeOpen } from '@agent-tape/core/internal'
import { installHttpBoundary } from '@agent-tape/http'
import { CaptureDirectory } from './capture-directory.js'
import { CaptureDrop, type CaptureStats, StatsBook } from './capture-stats.js'
import { type FetchCaptureOptions, type FetchHandler, wrapFetchHandler } from './fetch-handler.js'
import { KeptQueue } from './kept-queue.js'
import {
  type NextFunction,
  type NodeCaptureOptions,
  type NodeHandler,
  nodeMiddleware,
  wrapNodeHandler,
} from './node-handler.js'
import { type CaptureOptions, resolveCaptureOptions } from './options.js'
import { type CaptureContext, type CaptureRun, RecordedRun, recordedRunOf } from './recorded-run.js'
import { RunsInFlight } from './runs-in-flight.js'
import { loadTracing } from './trace-link.js'

/** A capture: records sampled agent runs of a long-running process into cassettes. */
export interface Capture {
  /**
   * Runs `fn` as one agent run: when the sample chooses it, in its own async context and its own
   * recording, so that every model request, MCP call and HTTP request it makes (however deep) is
   * recorded into its cassette and no other. Returns what `fn` returns and throws what it
   * throws, unchanged; capture never throws into the run. `input` is stored in the header as
   * JSON, for the test that `agent-tape promote` writes to call the agent with.
   *
   * @example
   * const answer = await capture.run('triage', ticket, () => runAgent(ticket))
   */
  run<T>(name: string, input: unknown, fn: (run: CaptureRun) => T | Promise<T>): Promise<Awaited<T>>
  /**
   * Marks the run this code is part of failed, with why (see {@link CaptureRun.fail}). Returns
   * `false`, and does nothing, outside a recorded run (outside `run`, or in a run the sample left out).
   */
  fail(reason: string): boolean
  /**
   * Wraps a node:http listener or an Express handler: each request is one run, until its
   * response ends (see {@link NodeCaptureOptions}).
   *
   * @example
   * app.post('/triage', express.json(), capture.handler('triage', async (req, res) => {
   *   res.json(await runAgent(req.body))
   * }))
   */
  // biome-ignore lint/suspicious/noExplicitAny: unannotated (req, res) are Express's, or any framework's: no types of ours to impose
  handler<Req extends IncomingMessage = any, Res extends ServerResponse = any, R = unknown>(
    name: string,
    handler: NodeHandler<Req, Res, R>,
    options?: NodeCaptureOptions<Req>,
  ): NodeHandler<Req, Res, R>
  /**
   * Connect-style middleware for Express (`app.use`) and node:http: each request is one run,
   * until its response ends. Prefer {@link handler} on the route, which also sees what it throws.
   */
  // biome-ignore lint/suspicious/noExplicitAny: as for handler
  middleware<Req extends IncomingMessage = any, Res extends ServerResponse = any>(
    name: string,
    options?: NodeCaptureOptions<Req>,
  ): (req: Req, res: Res, next: NextFunction) => void
  /**
   * Wraps a fetch-style handler `(request, ...rest) => Response`: Next.js route handlers, Hono's
   * `app.fetch`, `Bun.serve`, `Deno.serve`. Each request is one run, until its response body ends.
   *
   * @example
   * export const POST = capture.fetchHandler('chat', async (request) => Response.json(await runAgent(await request.json())))
   */
  fetchHandler<Rest extends unknown[]>(
    name: string,
    handler: FetchHandler<Rest>,
    options?: FetchCaptureOptions,
  ): FetchHandler<Rest>
  /** What the capture has recorded, kept, discarded and dropped (by reason), so far. */
  stats(): CaptureStats
  /**
   * Resolves once the boundary is loaded and runs can be recorded: a server awaits it before it
   * listens. A handler wrapper's run that starts earlier runs unrecorded (counted as `starting`);
   * `capture.run` waits for it instead. Never rejects.
   */
  ready(): Promise<void>
  /** Resolves once every kept run so far is written (or dropped). */
  flush(): Promise<void>
  /**
   * Stops recording new runs (they run unrecorded), waits for the runs in flight to end and the
   * kept ones to be written, and logs what it could not wait for: the runs still going after
   * `timeoutMs` (default 10 s) end as failed (kept under `keep: 'failed'`), and what is still
   * being written `timeoutMs` later is named in the log rather than waited for. Never rejects.
   */
  close(options?: { timeoutMs?: number }): Promise<void>
}

/** What the handler wrappers build on (see node-handler.ts and fetch-handler.ts). */
export interface CaptureInternals {
  /**
   * Counts a new run and opens its recording, in the same tick; `undefined` when the sample
   * leaves it out, or when it runs inside another run (a captured one, or a test's tape), of
   * which it is then a part.
   */
  open(name: string): RecordedRun | undefined
}

/**
 * Creates a capture for a long-running process (a server, a worker). With a sample above 0 it
 * installs agent-tape's HTTP boundary in the process, which lets every request outside a
 * recorded run pass untouched.
 *
 * @example
 * const capture = createCapture({ dir: 'captures', sample: 1, keep: 'failed' })
 * app.post('/triage', capture.handler('triage', async (req, res) => res.json(await runAgent(req.body))))
 */
export function createCapture(options: CaptureOptions): Capture {
  const resolved = resolveCaptureOptions(options)
  const book = new StatsBook(resolved.log)
  const directory =
    'dir' in resolved.target
      ? new CaptureDirectory(
          resolved.target.dir,
          { maxFiles: resolved.maxFiles, maxAgeMs: resolved.maxAgeMs },
          (count) => {
            book.stats.removed += count
          },
        )
      : undefined
  const context: CaptureContext = {
    options: resolved,
    book,
    directory,
    running: new RunsInFlight(resolved.maxRunMs),
    kept: new KeptQueue(),
    queuedBytes: 0,
  }
  let open = resolved.sample > 0
  // The interceptors load with the first tape (decision 0032): a run recorded before they are
  // applied would let its first requests pass unrecorded and be written without them.
  let loaded = !open
  let ready: Promise<void> = Promise.resolve()
  if (open) {
    installHttpBoundary({ modelEndpoints: resolved.modelEndpoints })
    const boundary = prepareTapeOpen().catch((error: unknown) => {
      open = false
      book.once('boundary', {
        what: 'Capture is off',
        why: `the HTTP boundary could not load (${error instanceof Error ? error.message : String(error)}), so no run can be recorded`,
        fix: 'Report it with the message above; the app runs as it would without capture',
      })
    })
    // Runs are recorded once the directory is known to take them, or not at all.
    const probed = directory
      ? probe(directory, book).then((usable) => {
          if (!usable) open = false
        })
      : undefined
    ready = Promise.all([boundary, probed]).then(() => {
      loaded = true
    })
    loadTracing()
  }

  const internals: CaptureInternals = {
    open(name) {
      book.stats.runs++
      if (!open || !chosen(resolved.sample) || currentTape()) return undefined
      if (!loaded) {
        book.drop(
          new CaptureDrop('starting', {
            what: `A run of "${name}" was not recorded`,
            why: 'it started before the HTTP boundary had loaded, in the first moments after createCapture()',
            fix: 'Await capture.ready() before the server listens',
          }),
        )
        return undefined
      }
      book.stats.recorded++
      return RecordedRun.open(context, name)
    },
  }

  const capture: Capture = {
    async run<T>(name: string, input: unknown, fn: (run: CaptureRun) => T | Promise<T>): Promise<Awaited<T>> {
      if (!loaded) await ready
      const run = internals.open(String(name))
      if (!run) return await fn(unrecorded(String(name)))
      run.setInput(input)
      try {
        const value = await run.enter(() => fn(run))
        run.end({ value })
        return value
      } catch (error) {
        run.threw()
        run.end({ error })
        throw error
      }
    },
    fail(reason) {
      const run = recordedRunOf(currentTape())
      if (!run) return false
      run.fail(reason)
      return true
    },
    handler: (name, handler, options) => wrapNodeHandler(internals, String(name), handler, options),
    middleware: (name, options) => nodeMiddleware(internals, String(name), options),
    fetchHandler: (name, handler, options) => wrapFetchHandler(internals, String(name), handler, options),
    stats: () => book.snapshot(),
    ready: () => ready,
    async flush() {
      await context.kept.settled()
      await directory?.settled()
    },
    async close(options = {}) {
      open = false
      // close() never rejects: a deadline that is no number of milliseconds is the default's.
      const given = options.timeoutMs
      const timeoutMs = typeof given === 'number' && given >= 0 && Number.isFinite(given) ? given : 10_000
      const { running } = context
      if (!(await settleWithin(running.settled(), timeoutMs, true))) {
        const still = running.size
        running.endAll('it was still running when the capture closed')
        book.note('close', {
          what: `capture.close() ended ${still} run${still === 1 ? '' : 's'} still running after ${timeoutMs} ms`,
          why: 'they had not ended by the deadline (a handler that never settles, an answer that never ends)',
          fix: "They are recorded as failed, and kept under keep: 'failed'; their code goes on untouched",
        })
      }
      const flushed = await settleWithin(capture.flush(), timeoutMs, true)
      if (!flushed && context.kept.size > 0) {
        book.note('close', {
          what: `capture.close() stopped waiting for ${context.kept.size} kept run${context.kept.size === 1 ? '' : 's'} still being written after ${timeoutMs} ms`,
          why: 'the directory or the sink is slower than the deadline',
          fix: 'Give close() a longer timeoutMs, or a faster dir or sink; their files may still appear',
        })
      }
      book.summarize()
    },
  }
  return capture
}

/**
 * What `work` resolves with, when it does within `ms`; `undefined` when it does not. With
 * `holding`, the deadline keeps the process alive (a shutdown that awaits `close()`); without,
 * it never does (the probe of a server that may exit at once).
 */
async function settleWithin<T>(
  work: Promise<T>,
  ms: number,
  holding: boolean,
): Promise<{ value: T } | undefined> {
  let timer: NodeJS.Timeout | undefined
  const expired = new Promise<undefined>((resolve) => {
    timer = setTimeout(() => resolve(undefined), ms)
    if (!holding) timer.unref()
  })
  const settled = await Promise.race([work.then((value) => ({ value })), expired])
  clearTimeout(timer)
  return settled
}

function chosen(sample: number): boolean {
  return sample >= 1 || Math.random() < sample
}

/** The handle of a run the sample left out: it records nothing, and `fail` does nothing. */
export function unrecorded(name: string): CaptureRun {
  return { id: '', name, recorded: false, fail() {} }
}

/** How long the directory may take to answer whether it can be written, as the capture starts. */
const PROBE_MS = 5_000

/**
 * Whether the directory can be written, asked once as the capture starts, with an end (a hung
 * network mount, a file system that refuses every folder). When it cannot, capture turns itself
 * off with one log line: the app runs as it would without it.
 */
async function probe(directory: CaptureDirectory, book: StatsBook): Promise<boolean> {
  const probed = await settleWithin(directory.probe(), PROBE_MS, false)
  const error = probed ? probed.value : 'late'
  if (error === undefined) return true
  book.once('write-error', {
    what: `Capture is off: cannot write captured runs to ${directory.path}`,
    why:
      error === 'late'
        ? `the file system did not answer within ${PROBE_MS / 1000} s whether the folder can be made and written`
        : `${error.code ?? 'the directory'}: ${error.message}`,
    fix: `Make ${directory.path} a folder this process can write, or pass a sink, and restart. The app runs as it would without capture; no run is recorded`,
  })
  return false
}
