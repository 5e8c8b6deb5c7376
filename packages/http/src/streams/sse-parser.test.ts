import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import type { SseEvent } from '../recorded-response.js'
import { spacingOf, stringifyJson } from './json-spacing.js'
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
        // JSON spaced as Google's APIs write it, and as Python does (kept as text).
        fc
          .tuple(jsonData, fc.constantFrom<[string, string]>([',', ': '], [', ', ': ']))
          .map(([json, separators]) => ({ data: stringifyJson(json, separators) })),
      ),
    },
    { requiredKeys: [] },
  )
  .filter(
    (e) => e.event !== undefined || e.id !== undefined || e.retry !== undefined || e.payload !== undefined,
  )
  .map(({ payload, ...fields }) => ({ ...fields, ...(payload ?? {}) }))

/**
 * What the parser stores for an event: JSON that re-serializes to the same bytes as `json`
 * (spaced as `separators` say), else `data`.
 */
function stored(e: Omit<SseEvent, 't'>): Omit<SseEvent, 't'> {
  const { json, data, ...fields } = e
  const raw = json !== undefined ? JSON.stringify(json) : data
  if (raw === undefined) return fields
  const parsed = raw.startsWith('{') || raw.startsWith('[') ? tryParse(raw) : undefined
  if (parsed === undefined) return { ...fields, data: raw }
  if (JSON.stringify(parsed) === raw) return { ...fields, json: parsed }
  const separators = spacingOf(parsed, raw)
  return separators ? { ...fields, json: parsed, separators: [...separators] } : { ...fields, data: raw }
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

describe('what servers write outside the SSE rules', () => {
  const parse = (...chunks: string[]) => {
    const parser = new SseParser(() => 0)
    return [...chunks.flatMap((c) => parser.push(c)), ...parser.end()]
  }

  it('keeps a JSON error body written into the stream between events, byte for byte, as one item', () => {
    const body = '{\n  "error": {\n    "code": 503,\n    "status": "UNAVAILABLE"\n  }\n}\n'
    const wire = `data: {"a": 1,"b": 2}\n\n${body}`
    const events = parse(wire.slice(0, 20), wire.slice(20, 30), wire.slice(30))
    expect(events).toEqual([
      { t: 0, json: { a: 1, b: 2 }, separators: [',', ': '] },
      { t: 0, text: body },
    ])
    expect(events.map(serializeSseEvent).join('')).toBe(wire)
  })

  it('ends unframed lines at a blank line or a field, and keeps their own line endings', () => {
    const wire = 'oops\r\n\r\nnot: a field\ndata: x\n\n'
    const events = parse(wire)
    expect(events).toEqual([
      { t: 0, text: 'oops\r\n\r\n' },
      { t: 0, text: 'not: a field\n' },
      { t: 0, data: 'x' },
    ])
    expect(events.map(serializeSseEvent).join('')).toBe(wire)
  })

  it('ignores an unknown field inside an event, as the rules say', () => {
    expect(parse('data: x\nfoo: bar\n\n')).toEqual([{ t: 0, data: 'x' }])
  })

  it('keeps data spaced as Google writes JSON as JSON, with its separators', () => {
    const google = '{"candidates": [{"content": {"parts": [{"text": "Hi"}],"role": "model"}}]}'
    const python = '{"a": [1, 2], "b": {"c": null}}'
    // A text with no item separator does not say how it is spaced: kept as text, as it always was.
    const wire = `data: ${google}\n\ndata: ${python}\n\ndata: {"a" : 1}\n\ndata: {"type": "ping"}\n\n`
    const events = parse(wire)
    expect(events).toEqual([
      { t: 0, json: JSON.parse(google), separators: [',', ': '] },
      { t: 0, data: python },
      { t: 0, data: '{"a" : 1}' },
      { t: 0, data: '{"type": "ping"}' },
    ])
    expect(events.map(serializeSseEvent).join('')).toBe(wire)
  })
})
