import { toRecordedError } from '@agent-tape/core/internal'
import type { StreamEnd } from '../recorded-response.js'
import type { StreamFormat, TimedItem } from './format.js'

/**
 * Reads a live stream to its end as the tape's copy: its items with the time each arrived
 * (`clock`, from the request), how the stream ended when it failed mid-way, and the raw chunks,
 * so the caller can keep the bytes instead when a text stream is not UTF-8.
 */
export async function captureStream<Item extends TimedItem>(
  format: StreamFormat<Item>,
  stream: ReadableStream<Uint8Array>,
  clock: () => number,
): Promise<{ items: Item[]; end?: StreamEnd; chunks: Uint8Array[] }> {
  const parser = format.parser(clock)
  const items: Item[] = []
  const chunks: Uint8Array[] = []
  const reader = stream.getReader()
  try {
    for (;;) {
      const { done, value } = await reader.read()
      if (done) break
      chunks.push(value)
      items.push(...parser.push(value))
    }
    items.push(...parser.end())
  } catch (error) {
    const { name, message } = toRecordedError(error)
    return { items, end: { error: { name, message } }, chunks }
  }
  return { items, chunks }
}
