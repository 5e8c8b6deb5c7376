import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import type { EventFrame, FrameHeaderValue } from '../recorded-response.js'
import { EVENTSTREAM_FORMAT } from './eventstream.js'
import { encodeFrame } from './eventstream-frame.js'
import { streamFormatOf } from './index.js'

/** Splits `bytes` at the given cut points. */
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

function parseAll(chunks: Uint8Array[]): EventFrame[] {
  const parser = EVENTSTREAM_FORMAT.parser(() => 0)
  return [...chunks.flatMap((chunk) => parser.push(chunk)), ...parser.end()]
}

function wireOf(frames: readonly EventFrame[]): Buffer {
  return Buffer.concat(frames.map((frame) => EVENTSTREAM_FORMAT.serialize(frame)))
}

const b64 = (text: string) => Buffer.from(text, 'utf8').toString('base64')
const int64 = fc.bigInt({ min: -(2n ** 63n), max: 2n ** 63n - 1n }).map(String)
const headerValue: fc.Arbitrary<FrameHeaderValue> = fc.oneof(
  fc.string({ maxLength: 20 }),
  fc.boolean(),
  fc.integer({ min: -128, max: 127 }).map((byte) => ({ byte })),
  fc.integer({ min: -32768, max: 32767 }).map((short) => ({ short })),
  fc.integer({ min: -(2 ** 31), max: 2 ** 31 - 1 }).map((int) => ({ int })),
  int64.map((long) => ({ long })),
  fc.uint8Array({ maxLength: 12 }).map((bytes) => ({ bytes: Buffer.from(bytes).toString('base64') })),
  int64.map((timestamp) => ({ timestamp })),
  fc.uuid().map((uuid) => ({ uuid })),
)
const json = fc.jsonValue({ maxDepth: 3 })
const payload: fc.Arbitrary<Uint8Array> = fc.oneof(
  json.map((v) => Buffer.from(JSON.stringify(v))),
  // A streamed chunk: the model's own JSON event, base64 in `bytes`.
  fc
    .tuple(json, fc.string({ maxLength: 8 }))
    .map(([v, p]) => Buffer.from(JSON.stringify({ bytes: b64(JSON.stringify(v)), p }))),
  json.map((v) => Buffer.from(JSON.stringify(v, null, 1) ?? '')),
  fc.uint8Array({ maxLength: 40 }),
)
const message = fc.record({
  headers: fc.dictionary(fc.string({ minLength: 1, maxLength: 12 }), headerValue, { maxKeys: 5 }),
  payload,
})

describe('the binary event stream', () => {
  it('gives back the bytes it was fed, however the stream was cut into chunks, a cut-off message included', () => {
    fc.assert(
      fc.property(
        fc.array(message, { maxLength: 6 }),
        fc.nat(30),
        fc.array(fc.nat(), { maxLength: 8 }),
        (messages, cutOff, cuts) => {
          const frames = messages.map((m) => Buffer.from(encodeFrame(m.headers, m.payload)))
          // The stream may end inside a last message.
          const last = frames.at(-1)
          const wire = Buffer.concat(
            last && cutOff > 0 ? [...frames, last.subarray(0, Math.min(cutOff, last.length - 1))] : frames,
          )
          const items = parseAll(chunked(wire, cuts))
          expect(wireOf(items).equals(wire)).toBe(true)
          // Every whole message is stored as data, never as raw bytes.
          expect(items.slice(0, frames.length).every((item) => 'headers' in item)).toBe(true)
        },
      ),
      { numRuns: 300 },
    )
  })

  it('reads a message the AWS codec encoded: every header type, and the chunk bytes decoded', () => {
    // Encoded by @smithy/eventstream-codec, the decoder the AWS SDKs use.
    const wire = Buffer.from(
      '0000013200000099fc4cccca0b3a6576656e742d747970650700056368756e6b0d3a636f6e74656e742d747970650700106170706c69636174696f6e2f6a736f6e0d3a6d6573736167652d747970650700056576656e740379657300026e6f01016202fd01730304d2016904fffe7960016c05ffe00000000000000372617706000300ff10027473080000018bcfe5687b026964090f8fad5bd9cb469fa16570867728950e7b226279746573223a2265794a306558426c496a6f695932397564475675644639696247396a6131396b5a57783059534973496d6c755a475634496a6f774c434a6b5a5778305953493665794a306558426c496a6f69644756346446396b5a57783059534973496e526c654851694f694a4961534a3966513d3d222c2270223a22616263646566227ddc557795',
      'hex',
    )
    const items = parseAll([wire])
    const delta = { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: 'Hi' } }
    expect(items).toEqual([
      {
        t: 0,
        headers: {
          ':event-type': 'chunk',
          ':content-type': 'application/json',
          ':message-type': 'event',
          yes: true,
          no: false,
          b: { byte: -3 },
          s: { short: 1234 },
          i: { int: -100000 },
          l: { long: '-9007199254740992' },
          raw: { bytes: 'AP8Q' },
          ts: { timestamp: '1700000000123' },
          id: { uuid: '0f8fad5b-d9cb-469f-a165-70867728950e' },
        },
        json: { bytes: delta, p: 'abcdef' },
        decoded: 'bytes',
      },
    ])
    expect(wireOf(items).equals(wire)).toBe(true)
    expect(EVENTSTREAM_FORMAT.event(items[0]!)).toEqual({
      event: 'chunk',
      data: { bytes: delta, p: 'abcdef' },
    })
  })

  it('keeps a payload that would not re-encode the same as text or base64, and a chunk whose bytes are no JSON as it came', () => {
    const headers = { ':event-type': 'x' }
    const payloads = ['{ "spaced": true }', '{"bytes":"bm90IGpzb24=","p":"a"}', '\u00ff\u0000']
    const items = parseAll([
      Buffer.concat([
        encodeFrame(headers, Buffer.from(payloads[0]!)),
        encodeFrame(headers, Buffer.from(payloads[1]!)),
        encodeFrame(headers, Buffer.from([0xff, 0x00])),
      ]),
    ])
    expect(items.map(({ t: _, ...rest }) => rest)).toEqual([
      { headers, text: '{ "spaced": true }' },
      { headers, json: { bytes: 'bm90IGpzb24=', p: 'a' } },
      { headers, base64: '/wA=' },
    ])
  })

  it('keeps raw the bytes that do not frame: a message whose CRC fails, and all that follows a broken prelude', () => {
    const good = Buffer.from(encodeFrame({ ':event-type': 'a' }, Buffer.from('{}')))
    const badCrc = Buffer.from(good)
    badCrc[badCrc.length - 1]! ^= 1
    const badPrelude = Buffer.from(good)
    badPrelude[9]! ^= 1
    const wire = Buffer.concat([good, badCrc, badPrelude, good])
    const cuts = [5, good.length * 2 + 3, good.length * 3 + 1]
    const items = parseAll(chunked(wire, cuts))
    expect(wireOf(items).equals(wire)).toBe(true)
    // The last good message is never read again: the framing was lost before it.
    expect(items.map((item) => ('raw' in item ? 'raw' : 'frame'))).toEqual(['frame', 'raw', 'raw', 'raw'])
  })

  it('names each message by its event, exception or error type', () => {
    const event = (headers: Record<string, FrameHeaderValue>, json?: unknown) =>
      EVENTSTREAM_FORMAT.event({ t: 0, headers, ...(json === undefined ? {} : { json }) })
    expect(
      event({ ':message-type': 'event', ':event-type': 'messageStop' }, { stopReason: 'end_turn' }),
    ).toEqual({
      event: 'messageStop',
      data: { stopReason: 'end_turn' },
    })
    expect(
      event(
        { ':message-type': 'exception', ':exception-type': 'throttlingException' },
        { message: 'slow down' },
      ),
    ).toEqual({ event: 'throttlingException', data: { message: 'slow down' } })
    expect(
      event({ ':message-type': 'error', ':error-code': 'InternalFailure', ':error-message': 'boom' }),
    ).toEqual({ event: 'InternalFailure', data: { message: 'boom' } })
    expect(EVENTSTREAM_FORMAT.event({ t: 0, raw: 'AAAA' })).toEqual({ data: undefined })
  })

  it('is chosen by its content type', () => {
    expect(streamFormatOf('application/vnd.amazon.eventstream')?.key).toBe('frames')
  })
})
