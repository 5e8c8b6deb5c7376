import type { RecordedResponse } from './recorded-response.js'
import type { ReplayTiming } from './replay-timing.js'
import { recordedStream } from './streams/index.js'
import { replayStream } from './streams/replay.js'

export type { ReplayTiming } from './replay-timing.js'

const RETRYABLE = (status: number) => status === 408 || status === 409 || status === 429 || status >= 500

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
  const stream = recordedStream(body)
  if (!stream) return new Response(null, init)
  const { format, items, end } = stream
  return new Response(replayStream(format, items, end?.error, timing, recorded.headersAt ?? 0, signal), init)
}
