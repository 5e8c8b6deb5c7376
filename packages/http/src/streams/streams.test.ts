import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import type { RecordedBody } from '../recorded-response.js'
import { recordedStream, STREAM_FORMATS, streamEvents, streamFormatOf } from './index.js'
import { NDJSON_FORMAT } from './ndjson.js'
import { SSE_FORMAT } from './sse.js'

const encoder = new TextEncoder()

/** Splits `bytes` at the given cut points (any, even inside a UTF-8 sequence). */
function chunked(bytes: Uint8Array, cuts: number[]): Uint8Array[] {
  const points = [...new Set(cuts.map((c) => c % (bytes.length + 1)))].sort((a, b) => a - b)
  const chunks: Uint8Array[] = []
  let from = 0
  for (const point of [...points, bytes.length]) {
    chunks.push(bytes.slice(from, point))
    from = point
  }
  return chunks
}

function parseAll<Item>(
  format: { parser(clock: () => number): { push(c: Uint8Array): Item[]; end(): Item[] } },
  chunks: Uint8Array[],
) {
  let now = 0
  const parser = format.parser(() => now++)
  const items = chunks.flatMap((chunk) => parser.push(chunk))
  return [...items, ...parser.end()]
}

function concat(parts: Uint8Array[]): string {
  return Buffer.concat(parts).toString('utf8')
}

describe('newline-delimited JSON', () => {
  const line = fc.oneof(
    fc.jsonValue({ maxDepth: 3 }).map((v) => JSON.stringify(v)),
    // Lines that are not compact JSON: spaced, `\r\n` endings, plain text.
    fc.jsonValue({ maxDepth: 2 }).map((v) => JSON.stringify(v, null, 1).replace(/\n/g, ' ')),
    fc.jsonValue({ maxDepth: 2 }).map((v) => `${JSON.stringify(v)}\r`),
    fc.string({ maxLength: 20 }).filter((s) => !s.includes('\n')),
  )

  it('gives back the bytes it was fed, however the stream was cut into chunks', () => {
    fc.assert(
      fc.property(
        fc.array(line, { maxLength: 8 }),
        fc.boolean(),
        fc.array(fc.nat(), { maxLength: 6 }),
        (lines, open, cuts) => {
          const text = lines.join('\n') + (open || lines.length === 0 ? '' : '\n')
          const items = parseAll(NDJSON_FORMAT, chunked(encoder.encode(text), cuts))
          expect(concat(items.map((item) => NDJSON_FORMAT.serialize(item)))).toBe(text)
        },
      ),
      { numRuns: 300 },
    )
  })

  it('stores compact JSON lines as JSON, anything else as text, and marks a last line without newline; reads every JSON line as JSON', () => {
    const text = '{"message":{"content":"Hel"},"done":false}\n{ "done": true }\r\nplain\n{"a":1}'
    const items = parseAll(NDJSON_FORMAT, [encoder.encode(text)])
    expect(items.map(({ t: _t, ...rest }) => rest)).toEqual([
      { json: { message: { content: 'Hel' }, done: false } },
      { text: '{ "done": true }\r' },
      { text: 'plain' },
      { json: { a: 1 }, open: true },
    ])
    expect(items.map((i) => NDJSON_FORMAT.event(i).data)).toEqual([
      { message: { content: 'Hel' }, done: false },
      { done: true },
      'plain',
      { a: 1 },
    ])
  })

  it('keeps the bytes of a line Go encoded (<, > and & escaped) and reads it as the JSON it is', () => {
    const line = '{"message":{"content":"a \\u003c b \\u0026\\u0026 c"},"done":false}\n'
    const items = parseAll(NDJSON_FORMAT, [encoder.encode(line)])
    expect(items).toEqual([{ t: 0, text: line.slice(0, -1) }])
    expect(concat(items.map((item) => NDJSON_FORMAT.serialize(item)))).toBe(line)
    expect(NDJSON_FORMAT.event(items[0]!).data).toEqual({ message: { content: 'a < b && c' }, done: false })
  })

  it('stamps each line with the time it arrived', () => {
    let now = 10
    const parser = NDJSON_FORMAT.parser(() => now)
    expect(parser.push(encoder.encode('{"a":1}\n{"b"'))).toEqual([{ t: 10, json: { a: 1 } }])
    now = 25
    expect(parser.push(encoder.encode(':2}\n'))).toEqual([{ t: 25, json: { b: 2 } }])
    expect(parser.end()).toEqual([])
  })
})

describe('server-sent events as a stream format', () => {
  it('gives back the bytes of provider-shaped events, however the stream was cut', () => {
    const text =
      'event: message_start\ndata: {"type":"message_start"}\n\ndata: {"choices":[{"delta":{"content":"é"}}]}\n\ndata: [DONE]\n\n'
    fc.assert(
      fc.property(fc.array(fc.nat(), { maxLength: 8 }), (cuts) => {
        const items = parseAll(SSE_FORMAT, chunked(encoder.encode(text), cuts))
        expect(concat(items.map((item) => SSE_FORMAT.serialize(item)))).toBe(text)
        expect(items.map((item) => SSE_FORMAT.event(item))).toEqual([
          { event: 'message_start', data: { type: 'message_start' } },
          { data: { choices: [{ delta: { content: 'é' } }] } },
          { data: '[DONE]' },
        ])
      }),
      { numRuns: 200 },
    )
  })
})

describe('choosing and reading a stream format', () => {
  it('chooses the format by content type, and nothing for a body that does not stream', () => {
    expect(streamFormatOf('text/event-stream; charset=utf-8')?.key).toBe('sse')
    expect(streamFormatOf('application/x-ndjson')?.key).toBe('ndjson')
    expect(streamFormatOf('application/ndjson')?.key).toBe('ndjson')
    expect(streamFormatOf('application/json')).toBeUndefined()
    expect(new Set(STREAM_FORMATS.map((f) => f.key)).size).toBe(STREAM_FORMATS.length)
  })

  it('finds the stream of a recorded body, with how it ended, and reads its events', () => {
    const body = {
      ndjson: [
        { t: 1, json: { done: false } },
        { t: 2, json: { done: true } },
      ],
      end: { error: { name: 'TypeError', message: 'terminated' } },
    } as RecordedBody
    expect(recordedStream(body)).toMatchObject({
      format: { key: 'ndjson' },
      end: { error: { name: 'TypeError' } },
    })
    expect(streamEvents(body)).toEqual([{ data: { done: false } }, { data: { done: true } }])
    expect(recordedStream({ json: {} })).toBeUndefined()
    expect(streamEvents(undefined)).toBeUndefined()
  })
})
