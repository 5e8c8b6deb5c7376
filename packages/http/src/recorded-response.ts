/**
 * A response as it is stored in a cassette (the decision's `out`). JSON bodies are stored as
 * JSON, text as text, binary as base64, and server-sent events as ordered events with their
 * names, data and time since the response started, so replay gives every SDK what it saw live.
 */
export interface RecordedResponse {
  status: number
  statusText?: string
  headers: Record<string, string>
  body?: RecordedBody
}

export type RecordedBody =
  | { json: unknown }
  | { text: string }
  | { base64: string }
  | { sse: SseEvent[]; end?: StreamEnd }

/** One server-sent event. `json` holds data that round-trips through JSON byte for byte; `data` holds any other text. */
export interface SseEvent {
  /** Milliseconds since the response headers arrived. */
  t: number
  event?: string
  id?: string
  retry?: number
  json?: unknown
  data?: string
}

/** How a stream ended, when it did not end cleanly: cut off mid-way by an error. */
export interface StreamEnd {
  error: { name: string; message: string }
}

export function isRecordedResponse(value: unknown): value is RecordedResponse {
  if (typeof value !== 'object' || value === null) return false
  const r = value as Partial<RecordedResponse>
  return typeof r.status === 'number' && typeof r.headers === 'object' && r.headers !== null
}
