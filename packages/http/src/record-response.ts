import { type BegunDecision, toRecordedError } from '@agent-tape/core/internal'
import { type BodyCopy, copyLiveBody } from './body-copy.js'
import { storableResponseHeaders } from './headers.js'
import type { RecordedBody, RecordedResponse } from './recorded-response.js'
import { isTextual } from './request-body.js'
import { NULL_BODY_STATUSES } from './statuses.js'
import type { StreamEvent, StreamFormat } from './streams/format.js'
import { streamFormatOf } from './streams/index.js'

export interface TeedResponse {
  /** What the caller reads: the live body, streaming as it arrives. */
  response: Response
  /** Settles once the tape's copy is complete (see {@link copyLiveBody}). */
  recorded: Promise<RecordedResponse>
}

export interface TeeOptions {
  /** Whether a streamed item is the answer's last: the recording ends there (see {@link copyLiveBody}). */
  isLastEvent?: ((event: StreamEvent) => boolean) | undefined
  /** The caller's signal: an abort ends the recording with it. */
  signal?: AbortSignal | undefined
  /** Called with the recorded response (or the error the body failed with) as soon as it is complete. */
  onRecorded?: (outcome: { out: RecordedResponse } | { error: unknown }) => void
  /** What the times are read from (default `performance.now`), as for {@link performAndRecord}. */
  clock?: () => number
}

/**
 * Splits a live response in two: the caller streams one branch while the tape keeps a copy until
 * the answer is complete, so recording never makes the caller wait for the whole body. Bodies are
 * stored decoded, so `content-encoding` and `content-length` are not passed on.
 */
export function teeForRecording(real: Response, started: number, options: TeeOptions = {}): TeedResponse {
  const now = options.clock ?? performance.now.bind(performance)
  const base = {
    status: real.status,
    statusText: real.statusText,
    headers: storableResponseHeaders(real.headers),
    headersAt: Math.round(now() - started),
  }
  if (real.body === null || NULL_BODY_STATUSES.has(real.status)) {
    options.onRecorded?.({ out: base })
    return { response: decodedResponse(real, null), recorded: Promise.resolve(base) }
  }
  const contentType = real.headers.get('content-type') ?? ''
  const format = streamFormatOf(contentType)
  const isLastEvent = options.isLastEvent
  let settle!: (outcome: { out: RecordedResponse } | { error: unknown }) => void
  const recorded = new Promise<RecordedResponse>((resolve, reject) => {
    settle = (outcome) => {
      options.onRecorded?.(outcome)
      if ('out' in outcome) resolve(outcome.out)
      else reject(outcome.error)
    }
  })
  // Read by whoever awaits it; a failure the caller never asks about is not unhandled.
  recorded.catch(() => {})
  const forCaller = copyLiveBody(real.body, {
    format,
    clock: () => now() - started,
    isLast: format && isLastEvent ? (item) => isLastEvent(format.event(item)) : undefined,
    signal: options.signal,
    onCopied(copy) {
      if (format) return settle({ out: { ...base, body: streamBody(format, copy, contentType) } })
      if (copy.failure !== undefined) return settle({ error: copy.failure })
      const body = bytesBody(Buffer.concat(copy.chunks), contentType)
      settle({ out: { ...base, ...(body ? { body } : {}) } })
    },
  })
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

function bytesBody(bytes: Buffer, contentType: string): RecordedBody | undefined {
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

/**
 * A stream's items, and how it ended when it failed mid-way; its bytes as they came when a text
 * stream is not UTF-8 (parsed items would change them).
 */
function streamBody(format: StreamFormat, copy: BodyCopy, contentType: string): RecordedBody {
  const end = copy.failure === undefined ? undefined : { error: endError(copy.failure) }
  if (format.text && !end) {
    const bytes = Buffer.concat(copy.chunks)
    if (!isUtf8(bytes)) return bytesBody(bytes, contentType) ?? { base64: '' }
  }
  return { [format.key]: copy.items, ...(end ? { end } : {}) } as RecordedBody
}

function endError(failure: unknown): { name: string; message: string } {
  const { name, message } = toRecordedError(failure)
  return { name, message }
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
 * (or the error, when the request fails). The caller reads the live branch of the response; the
 * decision is complete when the answer is (`isLastEvent`, for a stream whose API has a last
 * event), not when the socket is drained. Times are read from `clock`: a request observed
 * earlier and recorded later (a captured run that is kept) keeps the times it had.
 */
export async function performAndRecord(
  begun: Extract<BegunDecision, { action: 'record' }>,
  request: Request,
  perform: (request: Request) => Promise<Response>,
  isLastEvent?: (event: StreamEvent) => boolean,
  clock: () => number = performance.now.bind(performance),
): Promise<{ teed: TeedResponse } | { error: Error }> {
  const started = clock()
  let real: Response
  try {
    real = await perform(request)
  } catch (error) {
    begun.complete({ err: toRecordedError(error) }, clock() - started)
    return { error: error as Error }
  }
  const teed = teeForRecording(real, started, {
    isLastEvent,
    signal: request.signal,
    clock,
    onRecorded(outcome) {
      const ms = clock() - started
      if ('out' in outcome) begun.complete({ out: outcome.out }, ms)
      else begun.complete({ err: toRecordedError(outcome.error) }, ms)
    },
  })
  return { teed }
}
