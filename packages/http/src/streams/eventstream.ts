import type { EventFrame } from '../recorded-response.js'
import { announcedLength, decodeFrame, encodeFrame, PRELUDE_LENGTH } from './eventstream-frame.js'
import type { StreamEvent, StreamFormat } from './format.js'

type Message = Exclude<EventFrame, { raw: string }>
type Payload = Omit<Message, 't' | 'headers'>

/**
 * The binary event stream of AWS APIs (`application/vnd.amazon.eventstream`), as Bedrock
 * streams: each message stored as data, its headers and its payload (JSON when it is, with a
 * base64 `bytes` field decoded, so the secret scan and `show` read the streamed text), and sent
 * again as the same bytes with its lengths and CRCs computed anew. A message is stored in the
 * first form that gives back its exact bytes; bytes that do not frame (a prelude whose CRC fails,
 * a message cut off by the end of the stream) are kept `raw`.
 */
export const EVENTSTREAM_FORMAT: StreamFormat<EventFrame> = {
  key: 'frames',
  matches: (contentType) => /application\/vnd\.amazon\.eventstream/i.test(contentType),
  text: false,
  parser(clock) {
    let buffer: Buffer = Buffer.alloc(0)
    // Once a prelude fails its CRC the framing is lost: the rest is kept as it arrives.
    let framing = true
    const now = () => Math.round(clock())
    return {
      push(chunk) {
        if (!framing) return [{ t: now(), raw: base64(chunk) }]
        buffer = Buffer.concat([buffer, chunk])
        const frames: EventFrame[] = []
        while (buffer.length >= PRELUDE_LENGTH) {
          const total = announcedLength(buffer)
          if (total === undefined) {
            framing = false
            frames.push({ t: now(), raw: base64(buffer) })
            buffer = Buffer.alloc(0)
            break
          }
          if (buffer.length < total) break
          frames.push(toFrame(buffer.subarray(0, total), now()))
          buffer = buffer.subarray(total)
        }
        return frames
      },
      end() {
        const rest = buffer.length > 0 ? [{ t: now(), raw: base64(buffer) }] : []
        buffer = Buffer.alloc(0)
        return rest
      },
    }
  },
  serialize,
  event,
}

function serialize(frame: EventFrame): Uint8Array {
  if ('raw' in frame) return Buffer.from(frame.raw, 'base64')
  return encodeFrame(frame.headers, payloadBytes(frame))
}

function payloadBytes(frame: Message): Uint8Array {
  if (frame.json !== undefined) {
    const json =
      frame.decoded === 'bytes' ? { ...(frame.json as object), bytes: encodeBytes(frame) } : frame.json
    return Buffer.from(JSON.stringify(json), 'utf8')
  }
  if (frame.text !== undefined) return Buffer.from(frame.text, 'utf8')
  return Buffer.from(frame.base64 ?? '', 'base64')
}

function encodeBytes(frame: { json?: unknown }): string {
  const decoded = (frame.json as { bytes?: unknown }).bytes
  return Buffer.from(JSON.stringify(decoded), 'utf8').toString('base64')
}

/** A message as data, in the first form that serializes to the bytes received; else `raw`. */
function toFrame(bytes: Uint8Array, t: number): EventFrame {
  const frame = decodeFrame(bytes)
  if (frame) {
    const headers = Object.fromEntries(frame.headers)
    for (const payload of payloadForms(frame.payload)) {
      const stored = { t, headers, ...payload } as EventFrame
      if (Buffer.compare(serialize(stored), bytes) === 0) return stored
    }
  }
  return { t, raw: base64(bytes) }
}

/** The ways a payload can be stored, most readable first. */
function* payloadForms(payload: Uint8Array): Generator<Payload> {
  if (payload.length === 0) yield {}
  const text = utf8(payload)
  const json = text === undefined ? undefined : parseJson(text)
  if (json !== undefined) {
    const bytes = (json as { bytes?: unknown } | null)?.bytes
    const inner = typeof bytes === 'string' ? utf8(Buffer.from(bytes, 'base64')) : undefined
    const decoded = inner === undefined ? undefined : parseJson(inner)
    if (decoded !== undefined) yield { json: { ...(json as object), bytes: decoded }, decoded: 'bytes' }
    yield { json }
  }
  if (text !== undefined) yield { text }
  yield { base64: base64(payload) }
}

/** A message as codecs read it: its event (or exception, or error) type and its payload. */
function event(frame: EventFrame): StreamEvent {
  if ('raw' in frame) return { data: undefined }
  const { headers } = frame
  const name = [headers[':event-type'], headers[':exception-type'], headers[':error-code']].find(
    (value) => typeof value === 'string',
  )
  let data: unknown = frame.json !== undefined ? frame.json : (frame.text ?? frame.base64)
  if (data === undefined && headers[':message-type'] === 'error')
    data = { message: headers[':error-message'] }
  return name === undefined ? { data } : { event: name as string, data }
}

const strictUtf8 = new TextDecoder('utf-8', { fatal: true })

function utf8(bytes: Uint8Array): string | undefined {
  try {
    return strictUtf8.decode(bytes)
  } catch {
    return undefined
  }
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text)
  } catch {
    return undefined
  }
}

function base64(bytes: Uint8Array): string {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('base64')
}
