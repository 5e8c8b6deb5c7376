import { type BegunDecision, toRecordedError } from '@agent-tape/core/internal'
import { storableResponseHeaders } from './headers.js'
import type { RecordedBody, RecordedResponse } from './recorded-response.js'
import { isTextual } from './request-body.js'
import { captureStream } from './streams/capture.js'
import type { StreamFormat } from './streams/format.js'
import { streamFormatOf } from './streams/index.js'

const NULL_BODY_STATUSES = new Set([101, 103, 204, 205, 304])

export interface TeedResponse {
  /** What the caller reads: the live body, streaming as it arrives. */
  response: Response
  /** Settles once the tape's copy has been read to the end (or the stream failed). */
  recorded: Promise<RecordedResponse>
}

/**
 * Splits a live response in two: the caller streams one branch while the tape reads the other
 * to the end, so recording never makes the caller wait for the whole body. Bodies are stored
 * decoded, so `content-encoding` and `content-length` are not passed on.
 */
export function teeForRecording(real: Response, started: number): TeedResponse {
  const base = {
    status: real.status,
    statusText: real.statusText,
    headers: storableResponseHeaders(real.headers),
    headersAt: Math.round(performance.now() - started),
  }
  if (real.body === null || NULL_BODY_STATUSES.has(real.status)) {
    return { response: decodedResponse(real, null), recorded: Promise.resolve(base) }
  }
  const [forCaller, forTape] = real.body.tee()
  const contentType = real.headers.get('content-type') ?? ''
  const clock = () => performance.now() - started
  const format = streamFormatOf(contentType)
  const recorded = format
    ? captureStreamBody(format, forTape, clock, contentType).then((body) => ({ ...base, body }))
    : captureBytes(forTape, contentType).then((body) => ({ ...base, ...(body ? { body } : {}) }))
  return { response: decodedResponse(real, forCaller), recorded }
}

/**
 * A fetched response as the caller can take it: fetch has decoded the body, so the
 * `content-encoding` and `content-length` it arrived with no longer describe it (a client told
 * `gzip` decodes it again, and fails or hangs).
 */
export function decodedResponse(
  real: Response,
  body: ReadableStream<Uint8Array> | null = real.body,
): Response {
  const headers = new Headers(real.headers)
  headers.delete('content-encoding')
  headers.delete('content-length')
  const init = { status: real.status, statusText: real.statusText, headers }
  return new Response(NULL_BODY_STATUSES.has(real.status) ? null : body, init)
}

async function captureBytes(
  stream: ReadableStream<Uint8Array>,
  contentType: string,
): Promise<RecordedBody | undefined> {
  const bytes = Buffer.from(await new Response(stream).arrayBuffer())
  if (bytes.byteLength === 0) return undefined
  if (!isTextual(contentType) || !isUtf8(bytes)) return { base64: bytes.toString('base64') }
  const text = bytes.toString('utf8')
  if (/json/i.test(contentType)) {
    try {
      const json = JSON.parse(text)
      // Stored as JSON only when replay can give back the same bytes.
      if (JSON.stringify(json) === text) return { json }
    } catch {
      // not valid JSON despite its content type: kept as text
    }
  }
  return { text }
}

/** A stream's items; its bytes as they came when a text stream is not UTF-8 (parsed items would change them). */
async function captureStreamBody(
  format: StreamFormat,
  stream: ReadableStream<Uint8Array>,
  clock: () => number,
  contentType: string,
): Promise<RecordedBody> {
  const { items, end, chunks } = await captureStream(format, stream, clock)
  if (format.text && !end && !isUtf8(Buffer.concat(chunks))) {
    return (await captureBytes(new Blob(chunks).stream(), contentType)) ?? { base64: '' }
  }
  return { [format.key]: items, ...(end ? { end } : {}) } as RecordedBody
}

function isUtf8(bytes: Buffer): boolean {
  try {
    new TextDecoder('utf-8', { fatal: true }).decode(bytes)
    return true
  } catch {
    return false
  }
}

/**
 * Performs a request for the tape and records its response into the decision begun for it
 * (or the error, when the request fails). The caller reads the live branch of the response.
 */
export async function performAndRecord(
  begun: Extract<BegunDecision, { action: 'record' }>,
  request: Request,
  perform: (request: Request) => Promise<Response>,
): Promise<{ teed: TeedResponse } | { error: Error }> {
  const started = performance.now()
  let real: Response
  try {
    real = await perform(request)
  } catch (error) {
    begun.complete({ err: toRecordedError(error) }, performance.now() - started)
    return { error: error as Error }
  }
  const teed = teeForRecording(real, started)
  teed.recorded.then(
    (out) => begun.complete({ out }, performance.now() - started),
    (error: unknown) => begun.complete({ err: toRecordedError(error) }, performance.now() - started),
  )
  return { teed }
}
