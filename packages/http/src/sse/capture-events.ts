import { toRecordedError } from '@agent-tape/core/internal'
import type { SseEvent, StreamEnd } from '../recorded-response.js'
import { SseParser } from './sse-parser.js'

/**
 * Reads a live event stream to its end as the tape's copy: each event with the time it arrived
 * (`clock`, from the request), how the stream ended when it failed mid-way, and the raw chunks,
 * so the caller can keep the bytes instead when they are not UTF-8.
 */
export async function captureEvents(
  stream: ReadableStream<Uint8Array>,
  clock: () => number,
): Promise<{ events: SseEvent[]; end?: StreamEnd; chunks: Uint8Array[] }> {
  const parser = new SseParser(clock)
  const decoder = new TextDecoder()
  const events: SseEvent[] = []
  const chunks: Uint8Array[] = []
  const reader = stream.getReader()
  try {
    for (;;) {
      const { done, value } = await reader.read()
      if (done) break
      chunks.push(value)
      events.push(...parser.push(decoder.decode(value, { stream: true })))
    }
    events.push(...parser.push(decoder.decode()), ...parser.end())
  } catch (error) {
    const { name, message } = toRecordedError(error)
    return { events, end: { error: { name, message } }, chunks }
  }
  return { events, chunks }
}
