import type { SseEvent } from '../recorded-response.js'
import { spacingOf, stringifyJson } from './json-spacing.js'

const FIELDS = new Set(['data', 'event', 'id', 'retry'])

/**
 * An incremental parser for `text/event-stream` (the WHATWG rules): feed it text as it
 * arrives; it returns each event once its terminating blank line has been seen. Comments are
 * skipped, `data:` lines are joined with newlines. Lines that are no field at all, met between
 * events (a JSON error body some servers write into the stream, which an SDK may read), are
 * kept as they came, one item for each run of them.
 */
export class SseParser {
  private buffer = ''
  private current: { event?: string; id?: string; retry?: number; data: string[] } = { data: [] }
  private unframed: SseEvent | undefined

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
      events.push(...this.line(line, match[0]))
    }
    return events
  }

  /** Flushes an event left unterminated when the stream ended. */
  end(): SseEvent[] {
    const rest = this.buffer.length > 0 ? this.line(this.buffer, '') : []
    this.buffer = ''
    const last = this.dispatch()
    return [...rest, ...this.flushUnframed(), ...(last ? [last] : [])]
  }

  private line(line: string, ending: string): SseEvent[] {
    const colon = line.indexOf(':')
    const field = colon === -1 ? line : line.slice(0, colon)
    const isField = line === '' || colon === 0 || FIELDS.has(field)
    if (!isField && (this.unframed || this.idle())) {
      this.unframed ??= { t: 0, text: '' }
      this.unframed.text += line + ending
      this.unframed.t = Math.round(this.clock())
      return []
    }
    if (this.unframed && line === '') {
      // The blank line after unframed lines ends them, and goes with them.
      this.unframed.text += ending
      return this.flushUnframed()
    }
    const out = this.flushUnframed()
    if (line === '') {
      const event = this.dispatch()
      if (event) out.push(event)
      return out
    }
    let value = colon === -1 ? '' : line.slice(colon + 1)
    if (value.startsWith(' ')) value = value.slice(1)
    if (field === 'data') this.current.data.push(value)
    else if (field === 'event') this.current.event = value
    else if (field === 'id') this.current.id = value
    else if (field === 'retry' && /^\d+$/.test(value)) this.current.retry = Number(value)
    return out
  }

  private idle(): boolean {
    const { event, id, retry, data } = this.current
    return data.length === 0 && event === undefined && id === undefined && retry === undefined
  }

  private flushUnframed(): SseEvent[] {
    const unframed = this.unframed
    this.unframed = undefined
    return unframed ? [unframed] : []
  }

  private dispatch(): SseEvent | undefined {
    const { event, id, retry, data } = this.current
    if (this.idle()) return undefined
    this.current = { data: [] }
    const out: SseEvent = { t: Math.round(this.clock()) }
    if (event !== undefined) out.event = event
    if (id !== undefined) out.id = id
    if (retry !== undefined) out.retry = retry
    if (data.length > 0) Object.assign(out, encodeData(data.join('\n')))
    return out
  }
}

/** Stores data as JSON when re-serializing it gives the same bytes, else as text. */
function encodeData(raw: string): Pick<SseEvent, 'json' | 'separators' | 'data'> {
  if (raw.length > 0 && (raw[0] === '{' || raw[0] === '[')) {
    try {
      const parsed: unknown = JSON.parse(raw)
      if (JSON.stringify(parsed) === raw) return { json: parsed }
      const separators = spacingOf(parsed, raw)
      if (separators) return { json: parsed, separators: [...separators] }
    } catch {
      // not JSON: kept as text
    }
  }
  return { data: raw }
}

/** Serializes one event back to its wire form. */
export function serializeSseEvent(event: SseEvent): string {
  if (event.text !== undefined) return event.text
  let text = ''
  if (event.event !== undefined) text += `event: ${event.event}\n`
  if (event.id !== undefined) text += `id: ${event.id}\n`
  if (event.retry !== undefined) text += `retry: ${event.retry}\n`
  const data =
    event.json === undefined
      ? event.data
      : event.separators
        ? stringifyJson(event.json, event.separators)
        : JSON.stringify(event.json)
  if (data !== undefined) for (const line of data.split('\n')) text += `data: ${line}\n`
  return `${text}\n`
}
