import type { StreamEvent } from '../codecs/read.js'

/**
 * A stream format: how a streamed response is cut into items as it arrives, stored, and sent
 * again byte for byte. Server-sent events and newline-delimited JSON are text formats; a format
 * may be binary (framed messages). Adding one is a file here, listed in `index.ts`.
 */
export interface StreamFormat<Item extends TimedItem = TimedItem> {
  /** The field of the recorded body that holds the items: `sse`, `ndjson`, … */
  readonly key: string
  /** Whether a response with this content type streams in this format. */
  matches(contentType: string): boolean
  /** Text formats keep a stream's bytes instead of items when they are not UTF-8. */
  readonly text: boolean
  /** A parser for one stream: bytes in as they arrive, whole items out, each stamped by `clock`. */
  parser(clock: () => number): StreamParser<Item>
  /** The bytes of one item, exactly as they were received. */
  serialize(item: Item): Uint8Array
  /** One item as a codec reads it: its event name, when the format has one, and its data. */
  event(item: Item): StreamEvent
}

/** Every stored item carries the milliseconds from the request to its arrival. */
export interface TimedItem {
  t: number
}

export interface StreamParser<Item> {
  push(chunk: Uint8Array): Item[]
  /** Whatever the stream left unterminated when it ended. */
  end(): Item[]
}

export type { StreamEvent }
