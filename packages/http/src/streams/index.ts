import type { RecordedBody, StreamEnd } from '../recorded-response.js'
import { EVENTSTREAM_FORMAT } from './eventstream.js'
import type { StreamEvent, StreamFormat, TimedItem } from './format.js'
import { NDJSON_FORMAT } from './ndjson.js'
import { SSE_FORMAT } from './sse.js'

/** The stream formats agent-tape records and replays, by the response's content type. */
export const STREAM_FORMATS: readonly StreamFormat[] = [
  SSE_FORMAT,
  NDJSON_FORMAT,
  EVENTSTREAM_FORMAT,
] as StreamFormat[]

/** The stream format of a response with this content type, if it streams. */
export function streamFormatOf(contentType: string): StreamFormat | undefined {
  return STREAM_FORMATS.find((format) => format.matches(contentType))
}

/** A recorded body that holds a stream: its format, items and how it ended. */
export function recordedStream(
  body: RecordedBody | undefined,
): { format: StreamFormat; items: TimedItem[]; end?: StreamEnd } | undefined {
  if (!body) return undefined
  const record = body as Record<string, unknown>
  for (const format of STREAM_FORMATS) {
    const items = record[format.key]
    if (Array.isArray(items)) {
      const end = record.end as StreamEnd | undefined
      return { format, items: items as TimedItem[], ...(end ? { end } : {}) }
    }
  }
  return undefined
}

/** The events of a recorded stream as codecs read them; `undefined` when the body is no stream. */
export function streamEvents(body: RecordedBody | undefined): StreamEvent[] | undefined {
  const stream = recordedStream(body)
  return stream?.items.map((item) => stream.format.event(item))
}

export type { StreamEvent, StreamFormat, TimedItem } from './format.js'
