import { AnswerBody } from './answer-body.js'
import type { CaptureInternals } from './capture.js'
import type { RecordedRun, RunEnd } from './recorded-run.js'

/** Options of the fetch-style wrapper. */
export interface FetchCaptureOptions {
  /**
   * The run's input, stored as JSON for the test `agent-tape promote` writes, read from a copy
   * of the request (the handler reads the original). Default: the body of a request sent as
   * JSON, else none.
   */
  input?: (request: Request) => unknown
  /** Whether a response status marks the run failed (default: 500 and above). */
  failedStatus?: (status: number) => boolean
}

/** A fetch-style handler: Next.js route handlers, Hono's `app.fetch`, `Bun.serve`, `Deno.serve`. */
export type FetchHandler<Rest extends unknown[]> = (
  request: Request,
  ...rest: Rest
) => Response | Promise<Response>

const serverError = (status: number) => status >= 500

/**
 * Wraps a fetch-style handler: each request is one run, until the response's body has been
 * read to its end (a streamed answer included) or cancelled. It fails when the handler throws,
 * the body fails, the status is a failed one, or the code calls `capture.fail(reason)`. The
 * response keeps its status, headers and bytes; a recorded run's body is handed on chunk by
 * chunk as the client reads it, to see where it ends.
 */
export function wrapFetchHandler<Rest extends unknown[]>(
  internals: CaptureInternals,
  name: string,
  handler: FetchHandler<Rest>,
  options: FetchCaptureOptions = {},
): FetchHandler<Rest> {
  return function capturedFetch(this: unknown, request: Request, ...rest: Rest) {
    const run = internals.open(name)
    if (!run) return handler.call(this, request, ...rest)
    // Copied before the handler reads the body, read beside it.
    const input = readInput(request, options.input)
    const finish = (end: RunEnd) => {
      void input.then((read) => {
        run.readInput(read)
        run.end(end)
      })
    }
    return (async () => {
      let response: Response
      try {
        response = await run.enter(() => handler.call(this, request, ...rest))
      } catch (error) {
        run.threw()
        finish({ error })
        throw error
      }
      if ((options.failedStatus ?? serverError)(response.status)) {
        run.fail(`responded with status ${response.status}`)
      }
      if (!response.body) {
        finish({})
        return response
      }
      return watchBody(run, response, finish)
    })()
  }
}

/** The input as a function that returns it or throws what reading it threw. */
async function readInput(
  request: Request,
  read: ((request: Request) => unknown) | undefined,
): Promise<() => unknown> {
  try {
    const copy = request.clone()
    const value = read ? await read(copy) : await jsonBody(copy)
    return () => value
  } catch (error) {
    return () => {
      throw error
    }
  }
}

async function jsonBody(request: Request): Promise<unknown> {
  if (!request.body || !/json/i.test(request.headers.get('content-type') ?? '')) return undefined
  try {
    return await request.json()
  } catch {
    return undefined
  }
}

/** The response with a body that ends the run where the client's reading ends. */
function watchBody(run: RecordedRun, response: Response, finish: (end: RunEnd) => void): Response {
  const reader = response.body!.getReader()
  const answer = new AnswerBody()
  const answered = () => ({ value: answer.value(response.headers.get('content-type')) })
  let ended = false
  const end = (how: RunEnd) => {
    if (ended) return
    ended = true
    finish(how)
  }
  const body = new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        try {
          const chunk = await reader.read()
          if (chunk.done) {
            controller.close()
            end(answered())
          } else {
            answer.add(chunk.value)
            controller.enqueue(chunk.value)
          }
        } catch (error) {
          run.threw()
          controller.error(error)
          end({ error })
        }
      },
      cancel(reason) {
        // The client stopped reading before the end: it gave up on the answer, and the run failed.
        run.fail('the client stopped reading the answer before its end')
        end({})
        return reader.cancel(reason)
      },
    },
    // Read only as the client reads: the handler's stream keeps its own pace and back-pressure.
    { highWaterMark: 0 },
  )
  return new Response(body, {
    status: response.status,
    statusText: response.statusText,
    headers: response.headers,
  })
}
