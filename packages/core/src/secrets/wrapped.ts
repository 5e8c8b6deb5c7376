/**
 * A text whose long tokens were wrapped at a column, read with the wrapping undone: a key or a
 * JWT wrapped at 64 or 76 columns (as PEM bodies, mail and some CLIs wrap them) is one secret
 * across its lines, and a scan of the lines one by one would catch its first line only.
 */
export interface Unwrapped {
  /** The text with each wrapping line break (and the indentation after it) removed. */
  text: string
  /** The index in the original text of the character at `index` of the unwrapped one. */
  original(index: number): number
  /** Whether the span `[start, end)` of the unwrapped text joins two lines. */
  joins(start: number, end: number): boolean
}

/**
 * The characters of a token: base64, base64url, and the dots, tildes and dashes of keys. A
 * wrapped line never ends in `=` (base64 pads its last line only), and `name=value` is a setting.
 */
const TOKEN = 'A-Za-z0-9+/_.~-'
/**
 * A line break inside a token: at least 16 token characters before it, another right after it
 * (past an indentation, as a YAML block or a folded header indents).
 */
const BREAK = new RegExp(`(?<=[${TOKEN}]{16})\\r?\\n[ \\t]*(?=[=${TOKEN}])`, 'g')
/** A wrapped line is long: a column of 40 or more (64 for PEM, 76 for MIME, 72 or 80 for some CLIs). */
const MIN_WIDTH = 40

/** `text` with its token-wrapping line breaks removed, or `undefined` when it has none. */
export function unwrapped(text: string): Unwrapped | undefined {
  if (text.length < MIN_WIDTH || !text.includes('\n')) return undefined
  /** Where each removed break was, in the unwrapped text, and how many characters it had. */
  const breaks: { at: number; length: number }[] = []
  let out = ''
  let from = 0
  for (const m of text.matchAll(BREAK)) {
    const lineStart = text.lastIndexOf('\n', m.index - 1) + 1
    const width = m.index - lineStart
    if (width < MIN_WIDTH) continue
    out += text.slice(from, m.index)
    breaks.push({ at: out.length, length: m[0].length })
    from = m.index + m[0].length
  }
  if (breaks.length === 0) return undefined
  out += text.slice(from)
  return {
    text: out,
    original(index) {
      let shift = 0
      for (const b of breaks) {
        if (b.at > index) break
        shift += b.length
      }
      return index + shift
    },
    joins: (start, end) => breaks.some((b) => b.at > start && b.at < end),
  }
}
