import {
  BYTES_MEMBER,
  BYTES_MEMBER_TEXT,
  decodeBytes,
  type EncodedBytes,
  encodeBytes,
  escapeKey,
  isBytesKey,
  unescapeKey,
} from './json-bytes.js'
import { joinPath } from './json-path.js'

/**
 * Returns a copy of a JSON value with every string leaf passed through `fn`. Objects and
 * arrays whose strings are all unchanged are returned as they are (no copy), so walking a
 * large input that needs no change allocates nothing.
 */
export function mapStrings(value: unknown, fn: (text: string, path: string) => string, path = ''): unknown {
  if (typeof value === 'string') return fn(value, path || '(root)')
  if (Array.isArray(value)) {
    let copy: unknown[] | undefined
    for (let i = 0; i < value.length; i++) {
      const next = mapStrings(value[i], fn, `${path}[${i}]`)
      if (next !== value[i]) {
        copy ??= value.slice()
        copy[i] = next
      }
    }
    return copy ?? value
  }
  if (typeof value === 'object' && value !== null) {
    let copy: Record<string, unknown> | undefined
    const record = value as Record<string, unknown>
    for (const key of Object.keys(record)) {
      const next = mapStrings(record[key], fn, joinPath(path, key))
      if (next !== record[key]) {
        copy ??= { ...record }
        copy[key] = next
      }
    }
    return copy ?? value
  }
  return value
}

/**
 * Converts a value to plain JSON data the way `JSON.stringify` would (dates to strings,
 * `undefined` members dropped), so what is recorded is exactly what replay returns. Bytes (a
 * Buffer, a typed array, a DataView, an ArrayBuffer) become `{"$bytes":"<base64>","type":…}`
 * at any depth, and a member named like that marker is escaped (see `json-bytes.ts`);
 * {@link fromJsonData} reads them back.
 */
export function toJsonData(value: unknown): unknown {
  if (value === undefined) return undefined
  return isJsonData(value) ? JSON.parse(JSON.stringify(value)) : encodedCopy(value)
}

/**
 * `value` itself when it already is plain JSON data (what `JSON.parse` returns: plain objects
 * and arrays, strings, finite numbers, booleans, null), else a JSON copy made by
 * {@link toJsonData}. For inputs that are only read at once, such as a request body about to be
 * keyed, it saves a serialize-and-parse round trip over the whole body.
 */
export function asJsonData(value: unknown): unknown {
  return isJsonData(value) ? value : encodedCopy(value)
}

/**
 * The value recorded JSON data stands for: encoded bytes as the kind of value that held them
 * (a Buffer as a Buffer, made anew), escaped member names as they were. Data without either is
 * returned as it is, and objects and arrays without them are shared, not copied.
 */
export function fromJsonData(value: unknown): unknown {
  if (typeof value !== 'object' || value === null) return value
  if (Array.isArray(value)) {
    let copy: unknown[] | undefined
    for (let i = 0; i < value.length; i++) {
      const next = fromJsonData(value[i])
      if (next !== value[i]) {
        copy ??= value.slice()
        copy[i] = next
      }
    }
    return copy ?? value
  }
  const record = value as Record<string, unknown>
  let copy: Record<string, unknown> | undefined
  let escaped = false
  for (const key of Object.keys(record)) {
    if (isBytesKey(key)) {
      if (key === BYTES_MEMBER) {
        const bytes = decodeBytes(record)
        if (bytes !== undefined) return bytes
      } else escaped = true
    }
    const next = fromJsonData(record[key])
    if (next !== record[key]) {
      copy ??= { ...record }
      copy[key] = next
    }
  }
  if (!escaped) return copy ?? value
  // Rebuilt in the recorded order, each member its own (a `__proto__` one included).
  return Object.fromEntries(Object.entries(copy ?? record).map(([key, item]) => [unescapeKey(key), item]))
}

/**
 * The JSON copy of a value that is not plain JSON data. The replacer sees each value after its
 * `toJSON` (a Buffer's is `{type, data: [numbers]}`), and the original in its holder. Member
 * names like the marker are rare, so they are escaped in a second pass, only when the text holds
 * more of them than bytes were encoded.
 */
function encodedCopy(value: unknown): unknown {
  let encoded = 0
  const text = JSON.stringify(value, function (this: Record<string, unknown>, key, item) {
    const bytes = bytesOf(this, key, item)
    if (bytes === undefined) return item
    encoded++
    return bytes
  })
  if (text === undefined) return undefined
  if (encoded === 0 ? !text.includes(BYTES_MEMBER_TEXT) : occurrences(text, BYTES_MEMBER_TEXT) <= encoded)
    return JSON.parse(text)
  const escaped = JSON.stringify(value, function (this: Record<string, unknown>, key, item) {
    return bytesOf(this, key, item) ?? withEscapedKeys(item)
  })
  return JSON.parse(escaped!)
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

function isJsonData(value: unknown): boolean {
  switch (typeof value) {
    case 'string':
    case 'boolean':
      return true
    case 'number':
      return Number.isFinite(value) && !Object.is(value, -0)
    case 'object': {
      if (value === null) return true
      const proto = Object.getPrototypeOf(value)
      if (Array.isArray(value)) {
        if (proto !== Array.prototype) return false
        for (let i = 0; i < value.length; i++) if (!isJsonData(value[i])) return false
        return true
      }
      if (proto !== Object.prototype && proto !== null) return false
      const record = value as Record<string, unknown>
      // A member named like the bytes marker is escaped in the copy.
      for (const key of Object.keys(record)) if (isBytesKey(key) || !isJsonData(record[key])) return false
      return true
    }
    default:
      return false
  }
}
