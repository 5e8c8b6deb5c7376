import type { RecordedResponse, SseEvent } from './recorded-response.js'
import { serializeSseEvent } from './sse/sse-parser.js'

/**
 * - `instant` (default): replay streams as fast as the consumer reads them.
 * - `recorded`: wait between events as long as the recording did.
 * - `{ speed }`: recorded timing divided by a factor (2 = twice as fast).
 */
export type ReplayTiming = 'instant' | 'recorded' | { speed: number }

const RETRYABLE = (status: number) => status === 408 || status === 409 || status === 429 || status >= 500

/** How much faster than recorded a replay runs: 0 for instant. */
export function replaySpeed(timing: ReplayTiming): number {
  return timing === 'instant' ? 0 : timing === 'recorded' ? 1 : timing.speed
}

/** Errors a caller's own abort produces: replayed when the caller's signal fires, not before. */
export function isAbortError(error: { name: string } | undefined): boolean {
  return error?.name === 'AbortError' || error?.name === 'TimeoutError'
}

/**
 * Waits, as the recording did, for the caller's `signal` to fire, and resolves with its reason;
 * if it has not fired `fallbackMs` later, resolves with undefined (the recorded error is used).
 */
export function abortOf(signal: AbortSignal | undefined, fallbackMs: number): Promise<unknown> {
  if (signal?.aborted) return Promise.resolve(signal.reason)
  return new Promise((resolve) => {
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort)
      resolve(undefined)
    }, fallbackMs)
    const onAbort = () => {
      clearTimeout(timer)
      resolve(signal?.reason)
    }
    signal?.addEventListener('abort', onAbort, { once: true })
  })
}

/** Builds the replayed response: the recorded status, headers and body; streams through a real ReadableStream. */
export function buildReplayResponse(
  recorded: RecordedResponse,
  timing: ReplayTiming = 'instant',
  signal?: AbortSignal,
): Response {
  const headers = new Headers(recorded.headers)
  if (timing === 'instant' && RETRYABLE(recorded.status)) {
    // The SDK will retry this recorded error, as it did live; replay need not wait for it.
    headers.delete('retry-after')
    // 1, not 0: some SDKs take only a positive retry-after-ms, and back off otherwise.
    headers.set('retry-after-ms', '1')
  }
  const init = { status: recorded.status, statusText: recorded.statusText ?? '', headers }
  const body = recorded.body
  if (!body) return new Response(null, init)
  if ('json' in body) return new Response(JSON.stringify(body.json), init)
  if ('text' in body) return new Response(body.text, init)
  if ('base64' in body) return new Response(Buffer.from(body.base64, 'base64'), init)
  return new Response(eventStream(body.sse, body.end?.error, timing, recorded.headersAt ?? 0, signal), init)
}

function eventStream(
  events: readonly SseEvent[],
  error: { name: string; message: string } | undefined,
  timing: ReplayTiming,
  headersAt: number,
  signal: AbortSignal | undefined,
): ReadableStream<Uint8Array> {
  const encoder = new TextEncoder()
  const speed = replaySpeed(timing)
  let index = 0
  // Event times count from the request; the wait for the headers was replayed before this.
  let previous = headersAt
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      const event = events[index]
      if (!event) {
        if (!error) return controller.close()
        // The caller aborted mid-stream while recording: the stream fails when it aborts again.
        const reason = isAbortError(error) ? await abortOf(signal, ABORT_FALLBACK_MS) : undefined
        controller.error(reason ?? toStreamError(error))
        return
      }
      if (speed > 0 && event.t > previous) await sleep((event.t - previous) / speed)
      previous = event.t
      index++
      controller.enqueue(encoder.encode(serializeSseEvent(event)))
    },
  })
}

/** How long a replayed abort waits for the caller's signal before failing with the recorded error. */
export const ABORT_FALLBACK_MS = 1000

function toStreamError(recorded: { name: string; message: string }): Error {
  const error = recorded.name === 'TypeError' ? new TypeError(recorded.message) : new Error(recorded.message)
  if (error.name !== recorded.name) error.name = recorded.name
  return error
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms))
}
