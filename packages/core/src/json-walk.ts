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
 * `undefined` members dropped), so what is recorded is exactly what replay returns.
 */
export function toJsonData(value: unknown): unknown {
  if (value === undefined) return undefined
  const text = JSON.stringify(value)
  return text === undefined ? undefined : JSON.parse(text)
}

/**
 * `value` itself when it already is plain JSON data (what `JSON.parse` returns: plain objects
 * and arrays, strings, finite numbers, booleans, null), else a JSON copy made by
 * {@link toJsonData}. For inputs that are only read at once, such as a request body about to be
 * keyed, it saves a serialize-and-parse round trip over the whole body.
 */
export function asJsonData(value: unknown): unknown {
  return isJsonData(value) ? value : toJsonData(value)
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
      for (const key of Object.keys(record)) if (!isJsonData(record[key])) return false
      return true
    }
    default:
      return false
  }
}
