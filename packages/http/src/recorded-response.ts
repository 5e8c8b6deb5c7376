/**
 * A response as it is stored in a cassette (the decision's `out`). JSON bodies are stored as
 * JSON, text as text, binary as base64, and streams (server-sent events, newline-delimited JSON)
 * as ordered items with the time each arrived, so replay gives every SDK what it saw live.
 */
export interface RecordedResponse {
  status: number
  statusText?: string
  headers: Record<string, string>
  /** Milliseconds from the request to its response headers (absent in older cassettes). */
  headersAt?: number
  body?: RecordedBody
}

export type RecordedBody =
  | { json: unknown }
  | { text: string }
  | { base64: string }
  | { sse: SseEvent[]; end?: StreamEnd }
  | { ndjson: NdjsonLine[]; end?: StreamEnd }
  | { frames: EventFrame[]; end?: StreamEnd }

/**
 * One server-sent event. `json` holds data that round-trips through JSON byte for byte (spaced
 * as `separators` say, when not compact); `data` holds any other text. Lines outside any event,
 * such as a JSON error body a server writes into the stream, are kept as they came in `text`.
 */
export interface SseEvent {
  /** Milliseconds since the request was sent (the time to the headers included). */
  t: number
  event?: string
  id?: string
  retry?: number
  json?: unknown
  /** The separators after items and after keys of `json`, when not `JSON.stringify`'s. */
  separators?: [string, string]
  data?: string
  text?: string
}

/**
 * One line of a newline-delimited JSON stream: `json` when the line round-trips byte for byte,
 * its `text` otherwise; `open` marks a last line the stream ended without a newline after.
 */
export type NdjsonLine = { t: number; open?: true } & ({ json: unknown } | { text: string })

/**
 * One message of a binary event stream (`application/vnd.amazon.eventstream`): its headers and
 * its payload, `json` when it round-trips byte for byte, else `text` (UTF-8) or `base64`. A
 * payload `{"bytes": "<base64 of JSON>"}` is stored with `bytes` decoded and `decoded: 'bytes'`,
 * so the streamed text can be read. `raw` keeps bytes that are not a well-formed message.
 */
export type EventFrame = { t: number } & (
  | {
      headers: Record<string, FrameHeaderValue>
      json?: unknown
      text?: string
      base64?: string
      decoded?: 'bytes'
    }
  | { raw: string }
)

/**
 * A header value of an event-stream message: strings and booleans as themselves, other types
 * tagged (`long` and `timestamp` in decimal, since they may exceed a JSON number).
 */
export type FrameHeaderValue =
  | string
  | boolean
  | { byte: number }
  | { short: number }
  | { int: number }
  | { long: string }
  | { bytes: string }
  | { timestamp: string }
  | { uuid: string }

/**
 * How a stream ended, when it did not end cleanly: cut off mid-way by an error. An abort by the
 * caller (`AbortError`, `TimeoutError`) is replayed when the caller's signal fires.
 */
export interface StreamEnd {
  error: { name: string; message: string }
}

export function isRecordedResponse(value: unknown): value is RecordedResponse {
  if (typeof value !== 'object' || value === null) return false
  const r = value as Partial<RecordedResponse>
  return typeof r.status === 'number' && typeof r.headers === 'object' && r.headers !== null
}

/**
 * The JSON of a recorded body, for reading: stored as JSON, or as text that is a JSON object or
 * array kept as text because re-serializing it would change its bytes (Go's encoder writes <, >
 * and & as \u003c, \u003e and \u0026). `undefined` for any other body.
 */
export function bodyJson(body: RecordedBody | undefined): { json: unknown } | undefined {
  if (!body) return undefined
  if ('json' in body) return body
  if (!('text' in body) || !/^\s*[[{]/.test(body.text)) return undefined
  try {
    return { json: JSON.parse(body.text) }
  } catch {
    return undefined
  }
}
