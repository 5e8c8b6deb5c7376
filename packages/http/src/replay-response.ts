import type { RecordedResponse, SseEvent } from './recorded-response.js'
import { serializeSseEvent } from './sse/sse-parser.js'

/**
 * - `instant` (default): replay streams as fast as the consumer reads them.
 * - `recorded`: wait between events as long as the recording did.
 * - `{ speed }`: recorded timing divided by a factor (2 = twice as fast).
 */
export type ReplayTiming = 'instant' | 'recorded' | { speed: number }

const RETRYABLE = (status: number) => status === 408 || status === 409 || status === 429 || status >= 500

/** Builds the replayed response: the recorded status, headers and body; streams through a real ReadableStream. */
export function buildReplayResponse(recorded: RecordedResponse, timing: ReplayTiming = 'instant'): Response {
  const headers = new Headers(recorded.headers)
  if (timing === 'instant' && RETRYABLE(recorded.status)) {
    // The SDK will retry this recorded error, as it did live; replay need not wait for it.
    headers.delete('retry-after')
    headers.set('retry-after-ms', '0')
  }
  const init = { status: recorded.status, statusText: recorded.statusText ?? '', headers }
  const body = recorded.body
  if (!body) return new Response(null, init)
  if ('json' in body) return new Response(JSON.stringify(body.json), init)
  if ('text' in body) return new Response(body.text, init)
  if ('base64' in body) return new Response(Buffer.from(body.base64, 'base64'), init)
  return new Response(eventStream(body.sse, body.end?.error, timing), init)
}

function eventStream(
  events: readonly SseEvent[],
  error: { name: string; message: string } | undefined,
  timing: ReplayTiming,
): ReadableStream<Uint8Array> {
  const encoder = new TextEncoder()
  const speed = timing === 'instant' ? 0 : timing === 'recorded' ? 1 : timing.speed
  let index = 0
  let previous = 0
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      const event = events[index]
      if (!event) {
        if (error) controller.error(toStreamError(error))
        else controller.close()
        return
      }
      if (speed > 0 && event.t > previous) await sleep((event.t - previous) / speed)
      previous = event.t
      index++
      controller.enqueue(encoder.encode(serializeSseEvent(event)))
    },
  })
}

function toStreamError(recorded: { name: string; message: string }): Error {
  const error = recorded.name === 'TypeError' ? new TypeError(recorded.message) : new Error(recorded.message)
  if (error.name !== recorded.name) error.name = recorded.name
  return error
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms))
}
