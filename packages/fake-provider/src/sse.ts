/** One server-sent event; `data` is already serialized so that codecs control the exact bytes. */
export interface SseEvent {
  /** The `event:` field; omitted for OpenAI Chat Completions, which sends `data:` lines only. */
  event?: string
  data: string
}

/** Serializes one event the way the providers do: `event: x\ndata: {…}\n\n`. */
export function formatSseEvent(event: SseEvent): string {
  const lines = event.event === undefined ? [] : [`event: ${event.event}`]
  for (const line of event.data.split('\n')) lines.push(`data: ${line}`)
  return `${lines.join('\n')}\n\n`
}

/** An event whose data is the compact JSON of `payload`. */
export function jsonEvent(event: string | undefined, payload: unknown): SseEvent {
  const data = JSON.stringify(payload)
  return event === undefined ? { data } : { event, data }
}
