import type { RecordedResponse } from './recorded-response.js'
import type { ReplayTiming } from './replay-timing.js'
import type { StreamFormat, TimedItem } from './streams/format.js'
import { recordedStream } from './streams/index.js'
import { replayStream } from './streams/replay.js'

export type { ReplayTiming } from './replay-timing.js'

const RETRYABLE = (status: number) => status === 408 || status === 409 || status === 429 || status >= 500

/**
 * A recorded response made ready to send: its headers as a list and its body serialized, once
 * per recorded response, however often it is replayed (a stream's items are serialized as the
 * first replay reaches them, and kept).
 */
interface ReplayParts {
  headers: [string, string][]
  /** The headers of an instant replay of a retryable error: the SDK's retry need not wait. */
  instantRetryHeaders: [string, string][] | undefined
  body:
    | { bytes: string | Uint8Array | null }
    | {
        format: StreamFormat
        items: readonly TimedItem[]
        chunks: Uint8Array[]
        end: { name: string; message: string } | undefined
      }
}

const prepared = new WeakMap<RecordedResponse, ReplayParts>()

/** Builds the replayed response: the recorded status, headers and body; streams through a real ReadableStream. */
export function buildReplayResponse(
  recorded: RecordedResponse,
  timing: ReplayTiming = 'instant',
  signal?: AbortSignal,
): Response {
  let parts = prepared.get(recorded)
  if (!parts) {
    parts = prepare(recorded)
    prepared.set(recorded, parts)
  }
  const headers = timing === 'instant' ? (parts.instantRetryHeaders ?? parts.headers) : parts.headers
  const init = { status: recorded.status, statusText: recorded.statusText ?? '', headers }
  const { body } = parts
  if ('bytes' in body) return new Response(body.bytes, init)
  return new Response(
    replayStream(body.format, body.items, body.end, timing, recorded.headersAt ?? 0, signal, body.chunks),
    init,
  )
}

function prepare(recorded: RecordedResponse): ReplayParts {
  const headers = Object.entries(recorded.headers).map(([name, value]): [string, string] => [
    name,
    String(value),
  ])
  // 1, not 0: some SDKs take only a positive retry-after-ms, and back off otherwise.
  const instantRetryHeaders = RETRYABLE(recorded.status)
    ? [
        ...headers.filter(([name]) => !/^retry-after(?:-ms)?$/i.test(name)),
        ['retry-after-ms', '1'] as [string, string],
      ]
    : undefined
  return { headers, instantRetryHeaders, body: prepareBody(recorded) }
}

function prepareBody(recorded: RecordedResponse): ReplayParts['body'] {
  const body = recorded.body
  if (!body) return { bytes: null }
  if ('json' in body) return { bytes: JSON.stringify(body.json) }
  if ('text' in body) return { bytes: body.text }
  if ('base64' in body) return { bytes: Buffer.from(body.base64, 'base64') }
  const stream = recordedStream(body)
  if (!stream) return { bytes: null }
  return { format: stream.format, items: stream.items, chunks: [], end: stream.end?.error }
}
