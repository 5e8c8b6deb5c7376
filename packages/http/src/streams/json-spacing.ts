/**
 * How a JSON text was spaced, when not as `JSON.stringify` writes it: the separator between
 * items and the one after a key (Python's `separators`). Streamed JSON is kept as JSON when one
 * of these gives back its bytes, so that the secret scan and the codecs read it decoded.
 */
export type JsonSeparators = readonly [item: string, key: string]

/** The spacings recognised: Google's APIs write `{"a": 1,"b": [2,3]}`. */
const SPACINGS: readonly JsonSeparators[] = [[',', ': ']]

/** `value` (parsed JSON) written with `separators`. */
export function stringifyJson(value: unknown, separators: JsonSeparators): string {
  const [item, key] = separators
  if (Array.isArray(value)) return `[${value.map((v) => stringifyJson(v, separators)).join(item)}]`
  if (typeof value === 'object' && value !== null)
    return `{${Object.entries(value)
      .map(([k, v]) => `${JSON.stringify(k)}${key}${stringifyJson(v, separators)}`)
      .join(item)}}`
  return JSON.stringify(value)
}

/**
 * The spacing that writes `parsed` back as exactly `raw`, if a recognised one does. A text with
 * no item separator (`{"type": "ping"}`) does not say which spacing it has: it is left to be kept
 * as text, as such events always were, so that their recordings keep their bytes.
 */
export function spacingOf(parsed: unknown, raw: string): JsonSeparators | undefined {
  if (!hasSeveralItems(parsed)) return undefined
  return SPACINGS.find((separators) => stringifyJson(parsed, separators) === raw)
}

function hasSeveralItems(value: unknown): boolean {
  if (typeof value !== 'object' || value === null) return false
  const items = Array.isArray(value) ? value : Object.values(value)
  return items.length > 1 || items.some(hasSeveralItems)
}
