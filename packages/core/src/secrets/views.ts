import { gunzipSync } from 'node:zlib'

/**
 * What a program that reads a string sees in it, beyond its characters: the value of a JSON
 * text (a model's tool-call arguments), the text its JSON escapes stand for (`sk\u005flive`),
 * the bytes of a base64 or base64url blob (a gzip body gunzipped), the payload of a `data:` URL,
 * a percent-encoded text decoded. The scanner looks for secrets in each view as in the string,
 * so a secret is caught in the form its reader will use.
 */
export type View =
  | { how: 'parsed as JSON' | 'embedded JSON, parsed'; json: unknown; start: number; end: number }
  | { how: ViewText; text: string; start: number; end: number }

type ViewText =
  | 'JSON-unescaped'
  | 'HTML-unescaped'
  | 'normalized (NFKC)'
  | 'embedded base64, decoded'
  | 'URL-decoded'
  | 'base64-decoded'
  | 'base64url-decoded'
  | 'gunzipped'
  | 'data URL, base64-decoded'

/**
 * A view of the whole string that a redaction may write back as redacted text: escapes and
 * percent-encoding are only spelling, so the redacted decoded text reads the same to a person.
 */
export function rewritesWhole(view: View, length: number): view is View & { text: string } {
  return view.start === 0 && view.end === length && SPELLINGS.has(view.how)
}

/** Views that only spell the same text another way. */
const SPELLINGS: ReadonlySet<View['how']> = new Set([
  'JSON-unescaped',
  'URL-decoded',
  'HTML-unescaped',
  'normalized (NFKC)',
])

/** Views are not taken of texts larger than this, nor of what a blob decodes to beyond it. */
const MAX_VIEW = 16 * 1024 * 1024
const DATA_URL = /data:[\w.+-]+\/[\w.+-]+(?:;[\w.+-]+=[\w.+-]+)*;base64,([A-Za-z0-9+/_-]{8,}={0,2})/g
const JSON_ESCAPE = /\\(?:u[0-9a-fA-F]{4}|[/"\\bfnrt])/

/** The views of `text`, each with the span of `text` it reads. */
export function viewsOf(text: string): View[] {
  if (text.length < 8 || text.length > MAX_VIEW) return []
  const views: View[] = []
  const whole = { start: 0, end: text.length }
  const first = text.charCodeAt(0)
  const trimmed = first === 0x7b || first === 0x5b || first <= 0x20 ? text.trim() : text
  if (/^[[{][\s\S]*[\]}]$/.test(trimmed)) {
    try {
      views.push({ how: 'parsed as JSON', json: JSON.parse(trimmed), ...whole })
      return views
    } catch {
      // Not JSON after all (a truncated stream, prose in brackets): read as text.
    }
  }
  if (text.includes('\\') && JSON_ESCAPE.test(text))
    views.push({ how: 'JSON-unescaped', text: unescapeJson(text), ...whole })
  if (text.includes('&') && HTML_ENTITY.test(text))
    views.push({ how: 'HTML-unescaped', text: unescapeHtml(text), ...whole })
  const normalized = compatibilityFolded(text)
  if (normalized !== undefined) views.push({ how: 'normalized (NFKC)', text: normalized, ...whole })
  const decoded = percentDecoded(text)
  if (decoded !== undefined) views.push({ how: 'URL-decoded', text: decoded, ...whole })
  const blob = decodeBlob(text)
  if (blob) views.push({ ...blob, ...whole })
  if (!blob) views.push(...embeddedBlobs(text))
  if (text.includes('{"')) views.push(...embeddedJson(text))
  if (text.includes('data:')) {
    for (const m of text.matchAll(DATA_URL)) {
      const payload = m[1]!
      const start = m.index + m[0].length - payload.length
      const bytes = Buffer.from(
        payload,
        payload.includes('-') || payload.includes('_') ? 'base64url' : 'base64',
      )
      views.push({
        how: 'data URL, base64-decoded',
        text: bytesAsText(bytes),
        start,
        end: start + payload.length,
      })
    }
  }
  return views
}

/** How many embedded blobs or JSON texts of one string are read: enough for any real text. */
const MAX_EMBEDDED = 32

/**
 * Base64 blobs inside prose (`could not connect: H4sIAAAA…`), read when they decode to text or
 * to gzip: an identifier that happens to use the same letters decodes to noise and is skipped.
 */
function embeddedBlobs(text: string): View[] {
  const views: View[] = []
  for (const run of blobRuns(text, 24)) {
    if (views.length >= MAX_EMBEDDED) break
    const blob = text.slice(run.start, run.end)
    if (blob.length === text.length || !/\d/.test(blob) || !/[A-Z]/.test(blob)) continue
    const decoded = decodeBlob(blob)
    if (!decoded || (decoded.how !== 'gunzipped' && !isMostlyText(decoded.text))) continue
    views.push({ how: 'embedded base64, decoded', text: decoded.text, ...run })
  }
  return views
}

function isMostlyText(text: string): boolean {
  let printable = 0
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i)
    if ((c >= 0x20 && c < 0x7f) || c === 0x0a || c === 0x0d || c === 0x09 || c >= 0xa0) printable++
  }
  return printable >= text.length * 0.9
}

/** JSON objects inside prose (`could not connect: {"kty":"RSA",…}`), by balanced braces. */
function embeddedJson(text: string): View[] {
  const views: View[] = []
  let from = 0
  while (views.length < MAX_EMBEDDED) {
    const start = text.indexOf('{"', from)
    if (start === -1) break
    const end = closingBrace(text, start)
    from = start + 2
    if (end === -1 || (start === 0 && end === text.length)) continue
    try {
      views.push({ how: 'embedded JSON, parsed', json: JSON.parse(text.slice(start, end)), start, end })
      from = end
    } catch {
      // Braces that balance around something that is not JSON: read on.
    }
  }
  return views
}

/** The index after the `}` that closes the object opened at `start`, or -1. */
function closingBrace(text: string, start: number): number {
  let depth = 0
  let inString = false
  for (let i = start; i < text.length; i++) {
    const c = text[i]
    if (inString) {
      if (c === '\\') i++
      else if (c === '"') inString = false
    } else if (c === '"') inString = true
    else if (c === '{' || c === '[') depth++
    else if (c === '}' || c === ']') {
      depth--
      if (depth === 0) return c === '}' ? i + 1 : -1
    }
  }
  return -1
}

/** The text of a base64 or base64url blob (a gzip one gunzipped), or undefined when it is none. */
function decodeBlob(text: string): { how: ViewText; text: string } | undefined {
  const alphabet = blobAlphabet(text)
  const padded = (alphabet === 'base64' || alphabet === 'either') && text.length % 4 === 0
  const url =
    !padded &&
    (alphabet === 'base64url' || alphabet === 'either') &&
    (/[-_]/.test(text) || !text.endsWith('='))
  if (!padded && !url) return undefined
  const bytes = Buffer.from(text, padded ? 'base64' : 'base64url')
  if (bytes[0] === 0x1f && bytes[1] === 0x8b) {
    try {
      return { how: 'gunzipped', text: bytesAsText(gunzipSync(bytes, { maxOutputLength: MAX_VIEW })) }
    } catch {
      // A gzip header on a damaged or oversized stream: read its bytes as they are.
    }
  }
  return { how: padded ? 'base64-decoded' : 'base64url-decoded', text: bytesAsText(bytes) }
}

/** UTF-8 when the bytes are, else one character per byte, so text inside binary is still read. */
function bytesAsText(bytes: Buffer): string {
  const utf8 = bytes.toString('utf8')
  return utf8.includes('\uFFFD') ? bytes.toString('latin1') : utf8
}

const ESCAPES: Record<string, string> = {
  '/': '/',
  '"': '"',
  '\\': '\\',
  b: '\b',
  f: '\f',
  n: '\n',
  r: '\r',
  t: '\t',
}

function unescapeJson(text: string): string {
  return text.replace(
    /\\(?:u([0-9a-fA-F]{4})|([/"\\bfnrt]))/g,
    (_, hex: string | undefined, c: string | undefined) =>
      hex ? String.fromCharCode(Number.parseInt(hex, 16)) : ESCAPES[c!]!,
  )
}

/** The text with its %XX escapes (and form `+` spaces) decoded, when it has any. */
function percentDecoded(text: string): string | undefined {
  if (!/%[0-9A-Fa-f]{2}/.test(text)) return undefined
  try {
    return decodeURIComponent(text.replace(/\+/g, ' '))
  } catch {
    return text.replace(/%([0-9A-Fa-f]{2})/g, (_, hex: string) =>
      String.fromCharCode(Number.parseInt(hex, 16)),
    )
  }
}

const HTML_ENTITY = /&(?:#\d{1,7}|#[xX][0-9a-fA-F]{1,6}|[A-Za-z][A-Za-z0-9]{1,31});/
/** The named entities that spell the characters of keys, JSON and markup. */
const NAMED_ENTITIES: Record<string, string> = {
  quot: '"',
  amp: '&',
  lt: '<',
  gt: '>',
  apos: "'",
  nbsp: ' ',
  lowbar: '_',
  UnderBar: '_',
  hyphen: '-',
  dash: '-',
  minus: '-',
  period: '.',
  colon: ':',
  semi: ';',
  comma: ',',
  sol: '/',
  bsol: '\\',
  equals: '=',
  plus: '+',
  num: '#',
  dollar: '$',
  percnt: '%',
  excl: '!',
  quest: '?',
  commat: '@',
  ast: '*',
  lpar: '(',
  rpar: ')',
  lsqb: '[',
  rsqb: ']',
  lcub: '{',
  rcub: '}',
  lbrace: '{',
  rbrace: '}',
  verbar: '|',
  grave: '`',
  tilde: '~',
  Hat: '^',
  newline: '\n',
  Tab: '\t',
}

/** The text with its HTML character references (`&quot;`, `&#34;`, `&#x22;`) decoded. */
function unescapeHtml(text: string): string {
  return text.replace(
    /&(?:#(\d{1,7})|#[xX]([0-9a-fA-F]{1,6})|([A-Za-z][A-Za-z0-9]{1,31}));/g,
    (all, dec, hex, name) => {
      if (name !== undefined) return NAMED_ENTITIES[name] ?? all
      const code = dec !== undefined ? Number.parseInt(dec, 10) : Number.parseInt(hex, 16)
      return code > 0 && code <= 0x10ffff ? String.fromCodePoint(code) : all
    },
  )
}

/**
 * Characters that are not written the way they read: invisible ones inside a word (zero-width
 * spaces and joiners, a soft hyphen, a byte-order mark), and compatibility forms that NFKC folds
 * back (full-width `ｓｋ－ｐｒｏｊ－`, mathematical letters).
 */
const INVISIBLE = /[\u00ad\u180e\u200b-\u200f\u202a-\u202e\u2060-\u2064\ufeff]/g
const COMPATIBILITY =
  /[\u00a0-\u00bf\u02b0-\u02ff\u1d00-\u1dbf\u2000-\u218f\u2460-\u24ff\u3000-\u303f\uff00-\uffef]|[\ud835][\udc00-\udfff]/

/** The text as NFKC folds it, invisible characters removed, or `undefined` when that changes nothing. */
function compatibilityFolded(text: string): string | undefined {
  let hasAny = false
  for (let i = 0; i < text.length; i++) {
    if (text.charCodeAt(i) >= 0xa0) {
      hasAny = true
      break
    }
  }
  if (!hasAny) return undefined
  const invisible = INVISIBLE.test(text)
  INVISIBLE.lastIndex = 0
  if (!invisible && !COMPATIBILITY.test(text)) return undefined
  const folded = (invisible ? text.replace(INVISIBLE, '') : text).normalize('NFKC')
  return folded === text ? undefined : folded
}

/** A base64 character: `0` none, `1` both alphabets, `2` base64's own (`+/`), `3` base64url's (`-_`). */
function blobChar(c: number): 0 | 1 | 2 | 3 {
  if ((c >= 48 && c <= 57) || (c >= 65 && c <= 90) || (c >= 97 && c <= 122)) return 1
  if (c === 43 || c === 47) return 2
  if (c === 45 || c === 95) return 3
  return 0
}

/**
 * Which base64 alphabet the whole of `text` is written in (16 characters or more, then up to two
 * `=`; `either` for letters and digits alone), or `undefined`. By a walk of its characters: a regular expression's repetition runs out
 * of stack on a blob of a few megabytes (a file read as bytes, a binary body).
 */
function blobAlphabet(text: string): 'base64' | 'base64url' | 'either' | undefined {
  let end = text.length
  while (end > 0 && text.charCodeAt(end - 1) === 61 && text.length - end < 2) end--
  if (end < 16) return undefined
  let own: 2 | 3 | undefined
  for (let i = 0; i < end; i++) {
    const kind = blobChar(text.charCodeAt(i))
    if (kind === 0) return undefined
    if (kind === 1) continue
    if (own !== undefined && own !== kind) return undefined
    own = kind
  }
  return own === undefined ? 'either' : own === 3 ? 'base64url' : 'base64'
}

/**
 * The runs of base64 or base64url characters in `text` of `min` characters or more, with their
 * padding, that stand alone (no base64 character or `=` right before or after them).
 */
function blobRuns(text: string, min: number): { start: number; end: number }[] {
  const runs: { start: number; end: number }[] = []
  let i = 0
  while (i < text.length) {
    if (blobChar(text.charCodeAt(i)) === 0) {
      i++
      continue
    }
    const start = i
    while (i < text.length && blobChar(text.charCodeAt(i)) !== 0) i++
    let end = i
    while (end < text.length && end - i < 2 && text.charCodeAt(end) === 61) end++
    const alone =
      (start === 0 || text.charCodeAt(start - 1) !== 61) &&
      (end === text.length || (blobChar(text.charCodeAt(end)) === 0 && text.charCodeAt(end) !== 61))
    if (i - start >= min && alone) runs.push({ start, end })
    i = end
    while (i < text.length && text.charCodeAt(i) === 61) i++
  }
  return runs
}
