import { BYTES_MEMBER, decodeBytes, isBytesKey, unescapeKey } from './json-bytes.js'
import { encodedJsonCopy } from './json-encode.js'
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
  const copy = plainCopy(value)
  return copy === NOT_PLAIN ? encodedJsonCopy(value) : copy
}

/**
 * `value` itself when it already is plain JSON data (what `JSON.parse` returns: plain objects
 * and arrays, strings, finite numbers, booleans, null), else a JSON copy made by
 * {@link toJsonData}. For inputs that are only read at once, such as a request body about to be
 * keyed, it saves a serialize-and-parse round trip over the whole body.
 */
export function asJsonData(value: unknown): unknown {
  return isJsonData(value) ? value : encodedJsonCopy(value)
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

const NOT_PLAIN = Symbol('not plain JSON data')

/**
 * A copy of plain JSON data, as `JSON.parse(JSON.stringify(value))` would make it, or
 * {@link NOT_PLAIN} at the first value that is not (a Date, a Buffer, a class instance, a
 * member named like the bytes marker). Strings are shared, not serialized and parsed again: an
 * agent's history copies in a fraction of the time. A structure too deep for it (or a cycle)
 * is left to `JSON.stringify`, which says which.
 */
function plainCopy(value: unknown): unknown {
  try {
    return copyPlain(value)
  } catch {
    return NOT_PLAIN
  }
}

function copyPlain(value: unknown): unknown {
  switch (typeof value) {
    case 'string':
    case 'boolean':
      return value
    case 'number':
      return Number.isFinite(value) && !Object.is(value, -0) ? value : NOT_PLAIN
    case 'object': {
      if (value === null) return null
      const proto = Object.getPrototypeOf(value)
      if (Array.isArray(value)) {
        if (proto !== Array.prototype) return NOT_PLAIN
        const copy = new Array(value.length)
        for (let i = 0; i < value.length; i++) {
          const item = copyPlain(value[i])
          if (item === NOT_PLAIN) return NOT_PLAIN
          copy[i] = item
        }
        return copy
      }
      if (proto !== Object.prototype && proto !== null) return NOT_PLAIN
      const record = value as Record<string, unknown>
      const copy: Record<string, unknown> = {}
      for (const key of Object.keys(record)) {
        if (isBytesKey(key)) return NOT_PLAIN
        const item = copyPlain(record[key])
        if (item === NOT_PLAIN) return NOT_PLAIN
        // A `__proto__` member is data, as JSON.parse makes it, not the copy's prototype.
        if (key === '__proto__')
          Object.defineProperty(copy, key, {
            value: item,
            enumerable: true,
            writable: true,
            configurable: true,
          })
        else copy[key] = item
      }
      return copy
    }
    default:
      return NOT_PLAIN
  }
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
