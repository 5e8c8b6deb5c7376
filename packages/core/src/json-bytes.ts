import { isAnyArrayBuffer, isSharedArrayBuffer } from 'node:util/types'

/**
 * Bytes in cassette JSON. A Buffer, a typed array, a DataView or an ArrayBuffer is written as
 * `{"$bytes":"<base64>","type":"Buffer"}` (the bytes in memory order, the kind of value that held
 * them), so a file read without an encoding is stored as its bytes, scanned as text by the secret
 * gate (which decodes base64), and replayed as the same kind of value.
 *
 * The encoding is unambiguous: a member named `$bytes`, `$$bytes`, … in the data itself is written
 * with one `$` more (`$$bytes`, `$$$bytes`, …) and read back with one less, so an object with a
 * `$bytes` member in a cassette is always encoded bytes.
 */
export interface EncodedBytes {
  $bytes: string
  type: BytesType
}

export type BytesType =
  | 'Buffer'
  | 'ArrayBuffer'
  | 'SharedArrayBuffer'
  | 'DataView'
  | 'Int8Array'
  | 'Uint8Array'
  | 'Uint8ClampedArray'
  | 'Int16Array'
  | 'Uint16Array'
  | 'Int32Array'
  | 'Uint32Array'
  | 'Float16Array'
  | 'Float32Array'
  | 'Float64Array'
  | 'BigInt64Array'
  | 'BigUint64Array'

export const BYTES_MEMBER = '$bytes'

/** What a JSON text holds once per member named `$bytes` (or `…$bytes`): a `"` inside a string is escaped. */
export const BYTES_MEMBER_TEXT = '$bytes":'

type TypedArrayConstructor = new (buffer: ArrayBuffer) => ArrayBufferView

const TYPED_ARRAYS = new Set<string>([
  'Int8Array',
  'Uint8Array',
  'Uint8ClampedArray',
  'Int16Array',
  'Uint16Array',
  'Int32Array',
  'Uint32Array',
  'Float16Array',
  'Float32Array',
  'Float64Array',
  'BigInt64Array',
  'BigUint64Array',
])

/** The name of a typed array's kind, read from its internal slot (a subclass or another realm's says the same). */
const typedArrayName = Object.getOwnPropertyDescriptor(
  Object.getPrototypeOf(Uint8Array.prototype),
  Symbol.toStringTag,
)!.get! as (this: unknown) => string | undefined

/** The encoding of `value` when it holds bytes, else `undefined`. */
export function encodeBytes(value: object): EncodedBytes | undefined {
  if (ArrayBuffer.isView(value)) {
    const type = Buffer.isBuffer(value) ? 'Buffer' : (typedArrayName.call(value) ?? 'DataView')
    const bytes = Buffer.from(value.buffer, value.byteOffset, value.byteLength)
    return { $bytes: bytes.toString('base64'), type: type as BytesType }
  }
  if (isAnyArrayBuffer(value)) {
    const type = isSharedArrayBuffer(value) ? 'SharedArrayBuffer' : 'ArrayBuffer'
    return { $bytes: Buffer.from(value).toString('base64'), type }
  }
  return undefined
}

const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/

/**
 * The value an object with a `$bytes` member encodes, made anew; `undefined` when the object is
 * not one agent-tape writes (a cassette edited by hand), which is then given back as it is.
 */
export function decodeBytes(record: Record<string, unknown>): unknown {
  const { $bytes: base64, type } = record
  if (typeof base64 !== 'string' || typeof type !== 'string' || Object.keys(record).length !== 2)
    return undefined
  if (base64.length % 4 !== 0 || !BASE64.test(base64)) return undefined
  const bytes = Buffer.from(base64, 'base64')
  if (type === 'Buffer') return bytes
  if (type === 'SharedArrayBuffer') {
    const shared = new SharedArrayBuffer(bytes.length)
    new Uint8Array(shared).set(bytes)
    return shared
  }
  const buffer = new ArrayBuffer(bytes.length)
  new Uint8Array(buffer).set(bytes)
  if (type === 'ArrayBuffer') return buffer
  if (type === 'DataView') return new DataView(buffer)
  const Typed = TYPED_ARRAYS.has(type)
    ? ((globalThis as Record<string, unknown>)[type] as
        | (TypedArrayConstructor & { BYTES_PER_ELEMENT: number })
        | undefined)
    : undefined
  if (!Typed || bytes.length % Typed.BYTES_PER_ELEMENT !== 0) return undefined
  return new Typed(buffer)
}

const BYTES_KEY = /^\$+bytes$/

/** Whether a member name is one the encoding escapes: `$bytes`, `$$bytes`, … */
export function isBytesKey(key: string): boolean {
  return key.charCodeAt(0) === 36 && BYTES_KEY.test(key)
}

/** A member name as the encoding writes it: one `$` more on `$bytes`, `$$bytes`, … */
export function escapeKey(key: string): string {
  return isBytesKey(key) ? `$${key}` : key
}

/** A member name as the data had it: one `$` less on `$$bytes`, `$$$bytes`, … (never on the marker). */
export function unescapeKey(key: string): string {
  return key !== BYTES_MEMBER && isBytesKey(key) ? key.slice(1) : key
}

/**
 * Whether a recorded input holds bytes the way agent-tape wrote them before it encoded them (a
 * Buffer's own JSON, `{"type":"Buffer","data":[71,73,…]}`) and a new one holds encoded bytes:
 * the two cannot key alike. Read only to explain a miss.
 */
export function bytesChangedForm(recorded: unknown, input: unknown): boolean {
  return (
    holds(input, (record) => typeof record.$bytes === 'string') &&
    holds(recorded, (record) => record.type === 'Buffer' && Array.isArray(record.data))
  )
}

function holds(value: unknown, test: (record: Record<string, unknown>) => boolean, depth = 0): boolean {
  if (typeof value !== 'object' || value === null || depth > 64) return false
  if (Array.isArray(value)) return value.some((item) => holds(item, test, depth + 1))
  const record = value as Record<string, unknown>
  return test(record) || Object.values(record).some((item) => holds(item, test, depth + 1))
}
