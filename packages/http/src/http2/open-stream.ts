import { AsyncResource } from 'node:async_hooks'
import type { ClientSessionRequestOptions, OutgoingHttpHeaders } from 'node:http2'
import { sentHeadersOf, toRequest } from './headers.js'
import type { SendHttp2 } from './perform.js'
import { TapedHttp2Stream } from './taped-stream.js'

/** Answers one stream's request: from the tape, or over `send` to the origin. */
export type StreamAnswer = (request: Request, send: SendHttp2) => Promise<Response>

export interface OpenStreamInit {
  session: object
  origin: URL
  headers: OutgoingHttpHeaders | undefined
  options: ClientSessionRequestOptions
  id: number
  answer: StreamAnswer
  send: SendHttp2
  onActivity(): void
}

// node:http2 ends the writable side at once for these, unless `endStream` says otherwise.
const NO_PAYLOAD_METHODS = new Set(['GET', 'HEAD', 'DELETE'])

/** `session.request(headers, options)` answered by the tape, with node:http2's defaults and options. */
export function openTapedStream(init: OpenStreamInit): TapedHttp2Stream {
  const sent = sentHeadersOf(init.origin, init.headers)
  // Bound now: the request finds the tape of the code that called `request()`, whichever test
  // opened the session and whatever ends the body (a pipe runs in its source's context).
  const answer = AsyncResource.bind(async (body: Buffer, signal: AbortSignal) =>
    init.answer(toRequest(sent, body, signal), init.send),
  )
  const stream = new TapedHttp2Stream({
    session: init.session,
    sentHeaders: sent,
    id: init.id,
    answer,
    onActivity: init.onActivity,
  })
  const { signal } = init.options
  if (signal) {
    const abort = () => stream.destroy(abortError(signal.reason))
    if (signal.aborted) abort()
    else {
      signal.addEventListener('abort', abort, { once: true })
      stream.once('close', () => signal.removeEventListener('abort', abort))
    }
  }
  if (init.options.endStream ?? NO_PAYLOAD_METHODS.has(String(sent[':method']))) stream.end()
  return stream
}

/** node's own AbortError, as node:http2 fails a stream whose `signal` fires. */
function abortError(cause: unknown): Error {
  return Object.assign(new Error('The operation was aborted', { cause }), {
    name: 'AbortError',
    code: 'ABORT_ERR',
  })
}
