import { isAnyArrayBuffer } from 'node:util/types'
import { BYTES_MEMBER_TEXT, type EncodedBytes, encodeBytes, escapeKey, isBytesKey } from './json-bytes.js'

/**
 * The JSON copy of a value that is not plain JSON data (a Date, a class instance, bytes): what
 * `JSON.parse(JSON.stringify(value))` makes of it, with bytes encoded and member names like the
 * bytes marker escaped (see `json-bytes.ts`). A value without either is copied by `JSON.stringify`
 * alone: a replacer takes it off V8's fast path, and costs a third more on a value full of dates.
 */
export function encodedJsonCopy(value: unknown): unknown {
  if (typeof value === 'object' && value !== null && ownJson(value) === undefined) {
    // Bytes given as they are (a file read): encoded without the array of numbers `toJSON` makes.
    const whole = encodeBytes(value)
    if (whole) return whole
  }
  if (!mayHoldBytes(value)) {
    const text = JSON.stringify(value)
    return text === undefined ? undefined : JSON.parse(text)
  }
  // The replacer sees each value after its `toJSON` (a Buffer's is `{type, data: [numbers]}`), and
  // the original in its holder.
  let encoded = 0
  const text = JSON.stringify(value, function (this: Record<string, unknown>, key, item) {
    const bytes = bytesOf(this, key, item)
    if (bytes === undefined) return item
    encoded++
    return bytes
  })
  if (text === undefined) return undefined
  // Member names like the marker are rare: they are escaped in a second pass, only when the text
  // holds more of them than bytes were encoded.
  if (occurrences(text, BYTES_MEMBER_TEXT) <= encoded) return JSON.parse(text)
  const escaped = JSON.stringify(value, function (this: Record<string, unknown>, key, item) {
    return bytesOf(this, key, item) ?? withEscapedKeys(item)
  })
  return JSON.parse(escaped!)
}

/**
 * Whether `JSON.stringify` could meet bytes or a member named like the marker in `value`: it
 * walks what JSON.stringify walks, and a `toJSON` other than a Date's may return anything. A
 * structure too deep to walk (or a cycle) may; `JSON.stringify` then says what it is.
 */
function mayHoldBytes(value: unknown): boolean {
  try {
    return holdsBytes(value)
  } catch {
    return true
  }
}

function holdsBytes(value: unknown): boolean {
  if (typeof value !== 'object' || value === null) return false
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) if (holdsBytes(value[i])) return true
    return false
  }
  if (ArrayBuffer.isView(value) || isAnyArrayBuffer(value)) return true
  const toJson = (value as { toJSON?: unknown }).toJSON
  if (typeof toJson === 'function') return toJson !== Date.prototype.toJSON
  const record = value as Record<string, unknown>
  for (const key of Object.keys(record)) if (isBytesKey(key) || holdsBytes(record[key])) return true
  return false
}

/** The encoding of a value the replacer is given, when it holds bytes. */
function bytesOf(holder: Record<string, unknown>, key: string, item: unknown): EncodedBytes | undefined {
  if (typeof item !== 'object' || item === null || Array.isArray(item)) return undefined
  // A Buffer's `toJSON` ran before the replacer: the holder has the Buffer itself.
  if ((item as { type?: unknown }).type === 'Buffer') {
    const original = holder[key]
    return typeof original === 'object' && original !== null ? encodeBytes(original) : undefined
  }
  return encodeBytes(item)
}

/** A `toJSON` other than a Buffer's, which JSON.stringify would call first. */
function ownJson(value: object): unknown {
  const toJson = (value as { toJSON?: unknown }).toJSON
  return toJson === Buffer.prototype.toJSON ? undefined : toJson
}

function withEscapedKeys(item: unknown): unknown {
  if (typeof item !== 'object' || item === null || Array.isArray(item)) return item
  const keys = Object.keys(item)
  if (!keys.some(isBytesKey)) return item
  const record = item as Record<string, unknown>
  return Object.fromEntries(keys.map((key) => [escapeKey(key), record[key]]))
}

function occurrences(text: string, part: string): number {
  let count = 0
  for (let at = text.indexOf(part); at !== -1; at = text.indexOf(part, at + part.length)) count++
  return count
}
