import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import type { SseEvent } from '../recorded-response.js'
import { SseParser, serializeSseEvent } from './sse-parser.js'

// Field values as a parser can hand them back: no line breaks in names and ids (a line break
// ends the field), none but \n in data (the parser splits data lines on \n, \r\n and \r alike).
const lineText = fc.string({ maxLength: 20 }).filter((s) => !/[\r\n]/.test(s))
const dataText = fc.string({ maxLength: 40 }).filter((s) => !s.includes('\r'))
const jsonData = fc.jsonValue({ maxDepth: 3 }).map((v) => JSON.parse(JSON.stringify(v)) as unknown)

const event: fc.Arbitrary<Omit<SseEvent, 't'>> = fc
  .record(
    {
      event: lineText,
      id: lineText.filter((s) => !s.includes('\0')),
      retry: fc.nat(100_000),
      payload: fc.oneof(
        dataText.map((data) => ({ data })),
        jsonData.map((json) => ({ json })),
      ),
    },
    { requiredKeys: [] },
  )
  .filter(
    (e) => e.event !== undefined || e.id !== undefined || e.retry !== undefined || e.payload !== undefined,
  )
  .map(({ payload, ...fields }) => ({ ...fields, ...(payload ?? {}) }))

/** What the parser stores for an event: JSON that re-serializes to the same bytes as `json`, else `data`. */
function stored(e: Omit<SseEvent, 't'>): Omit<SseEvent, 't'> {
  const { json, data, ...fields } = e
  const raw = json !== undefined ? JSON.stringify(json) : data
  if (raw === undefined) return fields
  const parsed = raw.startsWith('{') || raw.startsWith('[') ? tryParse(raw) : undefined
  return parsed !== undefined && JSON.stringify(parsed) === raw
    ? { ...fields, json: parsed }
    : { ...fields, data: raw }
}

function tryParse(text: string): unknown {
  try {
    return JSON.parse(text)
  } catch {
    return undefined
  }
}

describe('SseParser and serializeSseEvent', () => {
  it('give back the same events from their wire form, however the bytes are split into chunks', () => {
    fc.assert(
      fc.property(
        fc.array(event, { maxLength: 8 }),
        fc.array(fc.nat(60), { maxLength: 6 }),
        (events, cuts) => {
          const wire = events.map((e) => serializeSseEvent({ t: 0, ...e })).join('')
          const parser = new SseParser(() => 0)
          const parsed: SseEvent[] = []
          let from = 0
          for (const cut of [...cuts].sort((a, b) => a - b)) {
            const to = Math.min(wire.length, cut)
            if (to <= from) continue
            parsed.push(...parser.push(wire.slice(from, to)))
            from = to
          }
          parsed.push(...parser.push(wire.slice(from)), ...parser.end())
          expect(parsed.map(({ t: _, ...e }) => e)).toEqual(events.map(stored))
          // And the parsed events serialize to the same bytes again.
          expect(parsed.map(serializeSseEvent).join('')).toBe(wire)
        },
      ),
      { numRuns: 300 },
    )
  })

  it('reads \\r\\n and \\r line endings as \\n, even when a \\r\\n pair is split across chunks', () => {
    const parser = new SseParser(() => 0)
    const events = [
      ...parser.push('event: a\r'),
      ...parser.push('\ndata: x\r\r'),
      ...parser.push('data: y\n\n'),
    ]
    expect(events).toEqual([
      { t: 0, event: 'a', data: 'x' },
      { t: 0, data: 'y' },
    ])
  })
})
