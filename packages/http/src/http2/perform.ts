import {
  type ClientHttp2Stream,
  type ClientSessionRequestOptions,
  constants,
  type IncomingHttpHeaders,
  type OutgoingHttpHeaders,
} from 'node:http2'
import { pipeline, type Readable, type Transform } from 'node:stream'
import zlib from 'node:zlib'

/** Opens a stream on a real HTTP/2 session: node:http2's own `session.request`. */
export type SendHttp2 = (
  headers?: OutgoingHttpHeaders,
  options?: ClientSessionRequestOptions,
) => ClientHttp2Stream

const NULL_BODY_STATUSES = new Set([204, 205, 304])

/**
 * Sends a request over a real HTTP/2 session and answers as `fetch` would: a `Response` that
 * resolves on the response headers and streams the body, decoded (so that recording stores, and
 * the caller reads, what a `fetch` would give them). Trailers are not carried over: a `Response`
 * has none.
 */
export async function performOverHttp2(request: Request, send: SendHttp2): Promise<Response> {
  request.signal.throwIfAborted()
  const url = new URL(request.url)
  const body = request.body ? Buffer.from(await request.arrayBuffer()) : undefined
  const headers: OutgoingHttpHeaders = {
    ':method': request.method,
    ':scheme': url.protocol.slice(0, -1),
    ':authority': url.host,
    ':path': `${url.pathname}${url.search}`,
  }
  request.headers.forEach((value, name) => {
    headers[name] = value
  })
  const stream = send(headers, { endStream: !body?.length })
  return new Promise<Response>((resolve, reject) => {
    const onAbort = () => stream.close(constants.NGHTTP2_CANCEL)
    request.signal.addEventListener('abort', onAbort, { once: true })
    // Kept for the stream's life: an error after the headers reaches the body, and is no one's here.
    stream.on('error', reject)
    stream.once('close', () => {
      request.signal.removeEventListener('abort', onAbort)
      reject(
        request.signal.aborted
          ? request.signal.reason
          : new Error(`HTTP/2 stream to ${url.origin} closed before a response (code ${stream.rstCode})`),
      )
    })
    stream.once('response', (head) => {
      try {
        resolve(toResponse(head, stream, request))
      } catch (error) {
        reject(error)
      }
    })
    if (body?.length) stream.end(body)
  })
}

function toResponse(head: IncomingHttpHeaders, stream: ClientHttp2Stream, request: Request): Response {
  const status = Number(head[':status'])
  const headers = new Headers()
  for (const [name, value] of Object.entries(head)) {
    if (name.startsWith(':') || value === undefined) continue
    for (const item of Array.isArray(value) ? value : [value]) headers.append(name, String(item))
  }
  if (request.method === 'HEAD' || NULL_BODY_STATUSES.has(status)) {
    stream.resume()
    return new Response(null, { status, headers })
  }
  const decoder = decoderFor(headers.get('content-encoding'))
  if (decoder) {
    headers.delete('content-encoding')
    headers.delete('content-length')
  }
  const source: Readable = decoder ? pipeline(stream, decoder, () => {}) : stream
  const body = webStreamOf(source, request.signal, () => stream.close(constants.NGHTTP2_CANCEL))
  return new Response(body, { status, headers })
}

function decoderFor(encoding: string | null): Transform | undefined {
  switch (encoding?.trim().toLowerCase()) {
    case 'gzip':
    case 'x-gzip':
      return zlib.createGunzip()
    case 'deflate':
      return zlib.createInflate()
    case 'br':
      return zlib.createBrotliDecompress()
    default:
      return undefined
  }
}

/**
 * The body as a web stream, read on demand: cancelling it resets the HTTP/2 stream, and an abort
 * fails it with the abort's reason, as fetch fails a body.
 */
function webStreamOf(source: Readable, signal: AbortSignal, cancel: () => void): ReadableStream<Uint8Array> {
  const chunks = source[Symbol.asyncIterator]()
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      let next: IteratorResult<unknown>
      try {
        next = await chunks.next()
      } catch (error) {
        throw signal.aborted ? signal.reason : error
      }
      if (signal.aborted) throw signal.reason
      if (next.done) controller.close()
      else controller.enqueue(new Uint8Array(next.value as Buffer))
    },
    async cancel() {
      cancel()
      await chunks.return?.()
    },
  })
}
