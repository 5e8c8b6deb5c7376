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
 * Whether a character is one of a token's: base64, base64url, and the dots, tildes and dashes of
 * keys. A wrapped line never ends in `=` (base64 pads its last line only), and `name=value` is a
 * setting, so `=` counts only at the start of a continuation line.
 */
function isToken(c: number): boolean {
  return (
    (c >= 48 && c <= 57) ||
    (c >= 65 && c <= 90) ||
    (c >= 97 && c <= 122) ||
    c === 43 || // +
    c === 47 || // /
    c === 95 || // _
    c === 46 || // .
    c === 126 || // ~
    c === 45 // -
  )
}
/**
 * A line break inside a token has at least this many token characters before it: most of a
 * wrapped line is its token, where a line of prose or of settings ends in a word or a short value
 * (`existingSecret: openai-credentials`, indented under a label, is no wrapped token).
 */
const MIN_RUN = 32
/** A wrapped line is long: a column of 40 or more (64 for PEM, 76 for MIME, 72 or 80 for some CLIs). */
const MIN_WIDTH = 40

/**
 * The next line break from `from`: a newline (`\n`, `\r\n`), or one written as JSON writes it
 * (`\\n`, `\\r\\n`: a wrapped key in a tool call's arguments, a JSON text inside a string).
 */
function nextBreak(text: string, from: number): { start: number; end: number } | undefined {
  const real = text.indexOf('\n', from)
  const escaped = text.indexOf('\\n', from)
  if (real === -1 && escaped === -1) return undefined
  if (escaped === -1 || (real !== -1 && real < escaped)) {
    const start = real > 0 && text.charCodeAt(real - 1) === 13 ? real - 1 : real
    return { start, end: real + 1 }
  }
  const start = escaped >= 2 && text.startsWith('\\r', escaped - 2) ? escaped - 2 : escaped
  return { start, end: escaped + 2 }
}

/**
 * `text` with its token-wrapping line breaks removed, or `undefined` when it has none. A break
 * wraps a token when the line before it is at least {@link MIN_WIDTH} long and ends in a run of
 * {@link MIN_RUN} token characters, and the next line goes on with one (past an indentation, as a
 * YAML block or a folded header indents).
 */
export function unwrapped(text: string): Unwrapped | undefined {
  if (text.length < MIN_WIDTH) return undefined
  let at = nextBreak(text, 0)
  if (at === undefined) return undefined
  /** Where each removed break was, in the unwrapped text, and how many characters it had. */
  const breaks: { at: number; length: number }[] = []
  let out = ''
  let from = 0
  let lineStart = 0
  for (; at !== undefined; at = nextBreak(text, at.end)) {
    const end = at.start
    const width = end - lineStart
    lineStart = at.end
    if (width < MIN_WIDTH) continue
    let run = 0
    while (run < MIN_RUN && isToken(text.charCodeAt(end - 1 - run))) run++
    if (run < MIN_RUN) continue
    let next = at.end
    while (text.charCodeAt(next) === 32 || text.charCodeAt(next) === 9) next++
    const c = text.charCodeAt(next)
    if (!(isToken(c) || c === 61)) continue
    out += text.slice(from, end)
    breaks.push({ at: out.length, length: next - end })
    from = next
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
