import type { IncomingMessage, ServerResponse } from 'node:http'
import { AnswerBody } from './answer-body.js'
import type { CaptureInternals } from './capture.js'
import type { RecordedRun } from './recorded-run.js'

/** Options of the node:http and Express wrappers. */
export interface NodeCaptureOptions<Req extends IncomingMessage = IncomingMessage> {
  /**
   * The run's input, stored as JSON for the test `agent-tape promote` writes. Read as the run
   * ends, once body parsers have run (default: `req.body`, where Express's parsers put it).
   */
  input?: (req: Req) => unknown
  /** Whether a response status marks the run failed (default: 500 and above). */
  failedStatus?: (status: number) => boolean
}

/** Express's `next`: an error (or `'route'`, `'router'`) moves on to the next layer. */
export type NextFunction = (error?: unknown) => void

/** A node:http request listener, or an Express/Connect handler. */
export type NodeHandler<Req extends IncomingMessage, Res extends ServerResponse, R> = (
  req: Req,
  res: Res,
  next: NextFunction,
) => R

const serverError = (status: number) => status >= 500
const bodyOf = (req: IncomingMessage) => (req as { body?: unknown }).body

/**
 * Wraps a node:http listener or an Express handler: each request is one run, from the call to
 * the end of the response. It fails when the handler throws or rejects, passes an error to
 * `next`, responds with a failed status, or calls `capture.fail(reason)`. What the handler
 * returns and throws reaches the server unchanged (Express 5 still handles a rejection).
 */
export function wrapNodeHandler<Req extends IncomingMessage, Res extends ServerResponse, R>(
  internals: CaptureInternals,
  name: string,
  handler: NodeHandler<Req, Res, R>,
  options: NodeCaptureOptions<Req> = {},
): NodeHandler<Req, Res, R> {
  return function capturedHandler(this: unknown, req: Req, res: Res, next: NextFunction): R {
    const run = internals.open(name)
    if (!run) return handler.call(this, req, res, next)
    const tracker = trackResponse(run, req, res, options)
    const watchedNext: NextFunction | undefined =
      typeof next === 'function'
        ? (error) => {
            if (isError(error)) tracker.failed(error)
            next(error)
          }
        : next
    let result: R
    try {
      result = run.enter(() => handler.call(this, req, res, watchedNext as NextFunction))
    } catch (error) {
      tracker.failed(error)
      tracker.handlerDone()
      throw error
    }
    if (!isPromiseLike(result)) {
      tracker.handlerDone()
      return result
    }
    return result.then(
      (value) => {
        tracker.handlerDone()
        return value
      },
      (error: unknown) => {
        tracker.failed(error)
        tracker.handlerDone()
        throw error
      },
    ) as R
  }
}

/**
 * Connect-style middleware (Express `app.use`, or a node:http server that calls it before its
 * handler): each request is one run, until its response ends. It fails on a failed status or
 * `capture.fail(reason)`; an error a later handler throws reaches Express's error handlers, not
 * this middleware, so wrap that handler with `capture.handler` to record what it threw.
 */
export function nodeMiddleware<Req extends IncomingMessage, Res extends ServerResponse>(
  internals: CaptureInternals,
  name: string,
  options: NodeCaptureOptions<Req> = {},
): (req: Req, res: Res, next: NextFunction) => void {
  return function captureMiddleware(req: Req, res: Res, next: NextFunction): void {
    const run = internals.open(name)
    if (!run) {
      next()
      return
    }
    const tracker = trackResponse(run, req, res, options)
    tracker.handlerDone()
    run.enter(() => next())
  }
}

interface Tracker {
  failed(error: unknown): void
  handlerDone(): void
}

/** Ends the run once the handler has returned and the response has ended (or the client left). */
function trackResponse<Req extends IncomingMessage>(
  run: RecordedRun,
  req: Req,
  res: ServerResponse,
  options: NodeCaptureOptions<Req>,
): Tracker {
  let handler = false
  let response = false
  let thrown: { error: unknown } | undefined
  const input = options.input ?? bodyOf
  run.readInputAtEnd(() => input(req))
  const answer = watchAnswer(res)
  const end = () => {
    if (!handler || !response) return
    if (!thrown && (options.failedStatus ?? serverError)(res.statusCode)) {
      run.fail(`responded with status ${res.statusCode}`)
    }
    run.end(thrown ?? { value: answer.value(res.getHeader('content-type')) })
  }
  const ended = () => {
    if (response) return
    response = true
    end()
  }
  // Closed before the answer was all sent: the client gave up on it, and the run failed.
  const closed = () => {
    if (!response && !res.writableFinished)
      run.fail('the client closed the connection before the answer was sent')
    ended()
  }
  if (res.writableFinished) response = true
  else {
    res.once('finish', ended)
    res.once('close', closed)
  }
  return {
    failed(error) {
      if (thrown) return
      thrown = { error }
      run.threw()
    },
    handlerDone() {
      handler = true
      end()
    },
  }
}

/** What the handler answers, noted as it writes it: `res.write` and `res.end` pass on unchanged. */
function watchAnswer(res: ServerResponse): AnswerBody {
  const answer = new AnswerBody()
  const { write, end } = res
  res.write = function (this: ServerResponse, chunk: unknown, ...rest: unknown[]) {
    answer.add(chunk)
    return (write as (...args: unknown[]) => boolean).call(this, chunk, ...rest)
  } as ServerResponse['write']
  res.end = function (this: ServerResponse, chunk?: unknown, ...rest: unknown[]) {
    answer.add(chunk)
    return (end as (...args: unknown[]) => ServerResponse).call(this, chunk, ...rest)
  } as ServerResponse['end']
  return answer
}

/** An error passed to `next`, rather than Express's `'route'` and `'router'` signals. */
function isError(value: unknown): boolean {
  return value !== undefined && value !== null && value !== 'route' && value !== 'router'
}

function isPromiseLike(value: unknown): value is PromiseLike<unknown> {
  return (
    typeof value === 'object' && value !== null && typeof (value as { then?: unknown }).then === 'function'
  )
}
