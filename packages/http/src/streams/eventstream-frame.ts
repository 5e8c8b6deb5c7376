import { crc32 } from 'node:zlib'
import type { FrameHeaderValue } from '../recorded-response.js'

/**
 * One message of the binary event-stream encoding: a prelude (total length, headers length, and
 * the CRC32 of those 8 bytes), the headers (name length, name, type byte, value), the payload,
 * and the CRC32 of everything before it. All integers are big-endian.
 */
export interface Frame {
  /** In wire order; a name may repeat. */
  headers: [string, FrameHeaderValue][]
  payload: Uint8Array
}

export const PRELUDE_LENGTH = 12
/** The prelude and the message CRC: the size of a message without headers and payload. */
const OVERHEAD = 16

const TYPE = {
  true: 0,
  false: 1,
  byte: 2,
  short: 3,
  int: 4,
  long: 5,
  bytes: 6,
  string: 7,
  timestamp: 8,
  uuid: 9,
}

const utf8 = new TextDecoder('utf-8', { fatal: true })

function viewOf(bytes: Uint8Array): DataView {
  return new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength)
}

/**
 * The length the prelude at the start of `bytes` (12 bytes at least) announces for its message;
 * `undefined` when it is no prelude: its CRC does not match, or the lengths cannot hold a message.
 */
export function announcedLength(bytes: Uint8Array): number | undefined {
  const view = viewOf(bytes)
  const total = view.getUint32(0)
  if (crc32(bytes.subarray(0, 8)) !== view.getUint32(8)) return undefined
  return total >= OVERHEAD + view.getUint32(4) ? total : undefined
}

/** Reads one whole message; `undefined` when it is not well formed (a CRC, a length, a header). */
export function decodeFrame(bytes: Uint8Array): Frame | undefined {
  if (bytes.length < OVERHEAD || announcedLength(bytes) !== bytes.length) return undefined
  const view = viewOf(bytes)
  if (crc32(bytes.subarray(0, bytes.length - 4)) !== view.getUint32(bytes.length - 4)) return undefined
  const headersEnd = PRELUDE_LENGTH + view.getUint32(4)
  const headers = decodeHeaders(bytes.subarray(PRELUDE_LENGTH, headersEnd))
  return headers && { headers, payload: bytes.subarray(headersEnd, bytes.length - 4) }
}

function decodeHeaders(bytes: Uint8Array): [string, FrameHeaderValue][] | undefined {
  const view = viewOf(bytes)
  const headers: [string, FrameHeaderValue][] = []
  const take = (at: number, length: number) => {
    if (at + length > bytes.length) throw new RangeError('header past the end')
    return bytes.subarray(at, at + length)
  }
  try {
    for (let at = 0; at < bytes.length; ) {
      const nameLength = view.getUint8(at)
      const name = utf8.decode(take(at + 1, nameLength))
      at += 1 + nameLength
      const type = view.getUint8(at++)
      let value: FrameHeaderValue
      if (type === TYPE.true || type === TYPE.false) value = type === TYPE.true
      else if (type === TYPE.byte) value = { byte: view.getInt8(at++) }
      else if (type === TYPE.short) {
        value = { short: view.getInt16(at) }
        at += 2
      } else if (type === TYPE.int) {
        value = { int: view.getInt32(at) }
        at += 4
      } else if (type === TYPE.long || type === TYPE.timestamp) {
        const decimal = view.getBigInt64(at).toString()
        value = type === TYPE.long ? { long: decimal } : { timestamp: decimal }
        at += 8
      } else if (type === TYPE.bytes || type === TYPE.string) {
        const slice = take(at + 2, view.getUint16(at))
        value = type === TYPE.string ? utf8.decode(slice) : { bytes: Buffer.from(slice).toString('base64') }
        at += 2 + slice.length
      } else if (type === TYPE.uuid) {
        const hex = Buffer.from(take(at, 16)).toString('hex')
        value = { uuid: hex.replace(/^(.{8})(.{4})(.{4})(.{4})/, '$1-$2-$3-$4-') }
        at += 16
      } else return undefined
      headers.push([name, value])
    }
  } catch {
    // A header that runs past the end, or text that is not UTF-8: not a message we can read.
    return undefined
  }
  return headers
}

/** Writes one message, its lengths and CRCs computed. */
export function encodeFrame(headers: Record<string, FrameHeaderValue>, payload: Uint8Array): Uint8Array {
  const head = Buffer.concat(Object.entries(headers).map(([name, value]) => encodeHeader(name, value)))
  const total = OVERHEAD + head.length + payload.length
  const out = Buffer.alloc(total)
  out.writeUInt32BE(total, 0)
  out.writeUInt32BE(head.length, 4)
  out.writeUInt32BE(crc32(out.subarray(0, 8)), 8)
  head.copy(out, PRELUDE_LENGTH)
  out.set(payload, PRELUDE_LENGTH + head.length)
  out.writeUInt32BE(crc32(out.subarray(0, total - 4)), total - 4)
  return out
}

function encodeHeader(name: string, value: FrameHeaderValue): Buffer {
  const nameBytes = Buffer.from(name, 'utf8')
  return Buffer.concat([Buffer.of(nameBytes.length), nameBytes, encodeValue(value)])
}

function encodeValue(value: FrameHeaderValue): Buffer {
  if (typeof value === 'boolean') return Buffer.of(value ? TYPE.true : TYPE.false)
  if (typeof value === 'string') return sized(TYPE.string, Buffer.from(value, 'utf8'))
  if ('bytes' in value) return sized(TYPE.bytes, Buffer.from(value.bytes, 'base64'))
  if ('uuid' in value)
    return Buffer.concat([Buffer.of(TYPE.uuid), Buffer.from(value.uuid.replace(/-/g, ''), 'hex')])
  if ('byte' in value) return fixed(TYPE.byte, 1, (out) => out.writeInt8(value.byte, 1))
  if ('short' in value) return fixed(TYPE.short, 2, (out) => out.writeInt16BE(value.short, 1))
  if ('int' in value) return fixed(TYPE.int, 4, (out) => out.writeInt32BE(value.int, 1))
  const [type, decimal] = 'long' in value ? [TYPE.long, value.long] : [TYPE.timestamp, value.timestamp]
  return fixed(type, 8, (out) => out.writeBigInt64BE(BigInt(decimal), 1))
}

function fixed(type: number, size: number, write: (out: Buffer) => void): Buffer {
  const out = Buffer.alloc(1 + size)
  out.writeUInt8(type, 0)
  write(out)
  return out
}

function sized(type: number, bytes: Buffer): Buffer {
  const head = Buffer.alloc(3)
  head.writeUInt8(type, 0)
  head.writeUInt16BE(bytes.length, 1)
  return Buffer.concat([head, bytes])
}
