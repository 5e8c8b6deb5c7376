import type { SseEvent } from '../recorded-response.js'

/**
 * An incremental parser for `text/event-stream` (the WHATWG rules): feed it text as it
 * arrives; it returns each event once its terminating blank line has been seen. Comments are
 * skipped, `data:` lines are joined with newlines.
 */
export class SseParser {
  private buffer = ''
  private current: { event?: string; id?: string; retry?: number; data: string[] } = { data: [] }

  constructor(private readonly clock: () => number) {}

  push(text: string): SseEvent[] {
    this.buffer += text
    const events: SseEvent[] = []
    for (;;) {
      const match = /\r\n|\r|\n/.exec(this.buffer)
      if (!match) break
      // A lone \r at the end of the buffer may be the first half of \r\n: wait for more.
      if (match[0] === '\r' && match.index === this.buffer.length - 1) break
      const line = this.buffer.slice(0, match.index)
      this.buffer = this.buffer.slice(match.index + match[0].length)
      const event = this.line(line)
      if (event) events.push(event)
    }
    return events
  }

  /** Flushes an event left unterminated when the stream ended. */
  end(): SseEvent[] {
    const rest = this.buffer.length > 0 ? this.line(this.buffer) : undefined
    this.buffer = ''
    const last = this.dispatch()
    return [rest, last].filter((e): e is SseEvent => e !== undefined)
  }

  private line(line: string): SseEvent | undefined {
    if (line === '') return this.dispatch()
    if (line.startsWith(':')) return undefined
    const colon = line.indexOf(':')
    const field = colon === -1 ? line : line.slice(0, colon)
    let value = colon === -1 ? '' : line.slice(colon + 1)
    if (value.startsWith(' ')) value = value.slice(1)
    if (field === 'data') this.current.data.push(value)
    else if (field === 'event') this.current.event = value
    else if (field === 'id') this.current.id = value
    else if (field === 'retry' && /^\d+$/.test(value)) this.current.retry = Number(value)
    return undefined
  }

  private dispatch(): SseEvent | undefined {
    const { event, id, retry, data } = this.current
    this.current = { data: [] }
    if (data.length === 0 && event === undefined && id === undefined && retry === undefined) return undefined
    const out: SseEvent = { t: Math.round(this.clock()) }
    if (event !== undefined) out.event = event
    if (id !== undefined) out.id = id
    if (retry !== undefined) out.retry = retry
    if (data.length > 0) Object.assign(out, encodeData(data.join('\n')))
    return out
  }
}

/** Stores data as JSON when re-serializing it gives the same bytes, else as text. */
function encodeData(raw: string): { json: unknown } | { data: string } {
  if (raw.length > 0 && (raw[0] === '{' || raw[0] === '[')) {
    try {
      const parsed = JSON.parse(raw)
      if (JSON.stringify(parsed) === raw) return { json: parsed }
    } catch {
      // not JSON: kept as text
    }
  }
  return { data: raw }
}

/** Serializes one event back to its wire form. */
export function serializeSseEvent(event: SseEvent): string {
  let text = ''
  if (event.event !== undefined) text += `event: ${event.event}\n`
  if (event.id !== undefined) text += `id: ${event.id}\n`
  if (event.retry !== undefined) text += `retry: ${event.retry}\n`
  const data = event.json !== undefined ? JSON.stringify(event.json) : event.data
  if (data !== undefined) for (const line of data.split('\n')) text += `data: ${line}\n`
  return `${text}\n`
}
