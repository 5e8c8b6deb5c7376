import { createHash } from 'node:crypto'
import { readForm } from '@agent-tape/core/internal'

/**
 * A request body as decision input: JSON as data, a form as its decoded fields, text as text, and binary (audio, images,
 * multipart uploads, bytes that are not UTF-8) as a sha256 of its bytes. A multipart body's random boundary is replaced
 * before hashing, so the same upload keys the same way on every run.
 */
export type RequestBody =
  | { json: unknown }
  | { form: [string, string][] }
  | { text: string }
  | { sha256: string; bytes: number; contentType: string }
  | undefined

/** Bodies the boundary had as bytes before it made a `Request` of them (a `fetch` called with a string body). */
const knownBodies = new WeakMap<Request, Buffer>()

/**
 * Says that `request`'s body is `bytes`, as its caller gave them: {@link readRequestBytes} then
 * takes them rather than reading the request's stream (which stays unread, for a request that is
 * sent on).
 */
export function knowBody(request: Request, bytes: Buffer): void {
  knownBodies.set(request, bytes)
}

/**
 * The bytes of a request's body, read once: `undefined` when it has none (or it is a `GET` or
 * `HEAD`, whose body takes no part in the key). With `consume`, the request itself is read (it
 * will be answered from the tape, never sent); otherwise a clone is, so the request can still be
 * performed.
 */
export async function readRequestBytes(request: Request, consume = false): Promise<Buffer | undefined> {
  if (request.body === null || request.method === 'GET' || request.method === 'HEAD') return undefined
  const bytes = knownBodies.get(request) ?? (await readAll((consume ? request : request.clone()).body!))
  return bytes.byteLength === 0 ? undefined : bytes
}

/** The whole of a body stream; a body that came in one chunk (a string or buffer body) is not copied. */
async function readAll(body: ReadableStream<Uint8Array>): Promise<Buffer> {
  const chunks: Uint8Array[] = []
  let size = 0
  const reader = body.getReader()
  for (let read = await reader.read(); !read.done; read = await reader.read()) {
    chunks.push(read.value)
    size += read.value.byteLength
  }
  const only = chunks.length === 1 ? chunks[0]! : undefined
  return only ? Buffer.from(only.buffer, only.byteOffset, only.byteLength) : Buffer.concat(chunks, size)
}

/**
 * A body's bytes as decision input, read as `contentType` says. With `json`, a body that parses
 * as a JSON object or array is read as JSON whatever its content type (an API whose SDK sends
 * JSON as `application/octet-stream`).
 */
export function toRequestBody(
  bytes: Buffer | undefined,
  contentType: string,
  { json = false }: { json?: boolean } = {},
): RequestBody {
  if (bytes === undefined || bytes.byteLength === 0) return undefined
  const parsed = json ? parseJsonValue(decodeUtf8(bytes)) : undefined
  if (parsed !== undefined) return { json: parsed }
  const boundary = /^multipart\//i.test(contentType)
    ? contentType.match(/boundary=(?:"([^"]+)"|([^;]+))/i)
    : null
  // Bytes that are not UTF-8 (binary sent without a content type, Latin-1 text, a gzipped body)
  // are hashed: decoded, they would become U+FFFD, and different bodies would key the same.
  const text = boundary || !isTextual(contentType) ? undefined : decodeUtf8(bytes)
  if (text !== undefined) {
    if (/json/i.test(contentType) || (contentType === '' && /^\s*[[{]/.test(text))) {
      try {
        return { json: JSON.parse(text) }
      } catch {
        return { text }
      }
    }
    // A form is keyed on its decoded fields; credentials (`client_secret=…`) take no part in the key.
    return /x-www-form-urlencoded/i.test(contentType) ? { form: readForm(text) } : { text }
  }
  const hashed = boundary
    ? replaceAll(bytes, Buffer.from(boundary[1] ?? boundary[2] ?? ''), Buffer.from('agent-tape-boundary'))
    : bytes
  return { sha256: sha256(hashed), bytes: bytes.byteLength, contentType: contentType.split(';')[0]!.trim() }
}

export function isTextual(contentType: string): boolean {
  return (
    contentType === '' ||
    /^text\//i.test(contentType) ||
    /[/+](json|xml|x-www-form-urlencoded|javascript|x-ndjson)\b/i.test(contentType) ||
    /event-stream/i.test(contentType)
  )
}

const UTF8 = new TextDecoder('utf-8', { fatal: true })

function decodeUtf8(bytes: Buffer): string | undefined {
  try {
    return UTF8.decode(bytes)
  } catch {
    return undefined
  }
}

/** A JSON object or array, or `undefined`. */
function parseJsonValue(text: string | undefined): unknown {
  if (text === undefined || !/^\s*[[{]/.test(text)) return undefined
  try {
    return JSON.parse(text)
  } catch {
    return undefined
  }
}

function sha256(bytes: Buffer): string {
  return createHash('sha256').update(bytes).digest('hex')
}

function replaceAll(haystack: Buffer, needle: Buffer, replacement: Buffer): Buffer {
  if (needle.length === 0) return haystack
  const parts: Buffer[] = []
  let from = 0
  for (let at = haystack.indexOf(needle, from); at !== -1; at = haystack.indexOf(needle, from)) {
    parts.push(haystack.subarray(from, at), replacement)
    from = at + needle.length
  }
  parts.push(haystack.subarray(from))
  return Buffer.concat(parts)
}
