import { crc32 } from 'node:zlib'
import type { StreamWire } from './endpoint.js'

/**
 * One message of the binary event stream AWS streams in, as the fake provider writes it: string
 * headers only, as Bedrock sends. Written here, apart from agent-tape's own codec, so that the
 * tests do not check that codec against itself.
 */
export interface EventMessage {
  headers: Readonly<Record<string, string>>
  /** The payload, UTF-8 text (JSON for Bedrock). */
  payload: string
}

const STRING_HEADER = 7

/** Encodes one message: prelude (total length, headers length, CRC32), headers, payload, CRC32. */
export function encodeEventMessage(message: EventMessage): Buffer {
  const headers = Object.entries(message.headers).map(([name, value]) => {
    const nameBytes = Buffer.from(name, 'utf8')
    const valueBytes = Buffer.from(value, 'utf8')
    const head = Buffer.alloc(1 + nameBytes.length + 3)
    head.writeUInt8(nameBytes.length, 0)
    nameBytes.copy(head, 1)
    head.writeUInt8(STRING_HEADER, 1 + nameBytes.length)
    head.writeUInt16BE(valueBytes.length, 2 + nameBytes.length)
    return Buffer.concat([head, valueBytes])
  })
  const headerBytes = Buffer.concat(headers)
  const payload = Buffer.from(message.payload, 'utf8')
  const prelude = Buffer.alloc(12)
  const total = prelude.length + headerBytes.length + payload.length + 4
  prelude.writeUInt32BE(total, 0)
  prelude.writeUInt32BE(headerBytes.length, 4)
  prelude.writeUInt32BE(crc32(prelude.subarray(0, 8)), 8)
  const body = Buffer.concat([prelude, headerBytes, payload])
  const trailer = Buffer.alloc(4)
  trailer.writeUInt32BE(crc32(body), 0)
  return Buffer.concat([body, trailer])
}

/** An event: `:event-type`, JSON content, `:message-type: event`, in the order Bedrock sends them. */
export function eventMessage(type: string, payload: unknown): EventMessage {
  return {
    headers: { ':event-type': type, ':content-type': 'application/json', ':message-type': 'event' },
    payload: JSON.stringify(payload),
  }
}

/** An exception sent in the stream (`throttlingException`, `modelStreamErrorException`, …). */
export function exceptionMessage(type: string, payload: unknown): EventMessage {
  return {
    headers: { ':exception-type': type, ':content-type': 'application/json', ':message-type': 'exception' },
    payload: JSON.stringify(payload),
  }
}

/** Bedrock's streams: `EventMessage`s in the binary event-stream encoding. */
export const EVENTSTREAM_WIRE: StreamWire = {
  contentType: 'application/vnd.amazon.eventstream',
  encode: (event) => encodeEventMessage(event as EventMessage),
}
