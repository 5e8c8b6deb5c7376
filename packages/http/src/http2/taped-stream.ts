import { constants, type OutgoingHttpHeaders } from 'node:http2'
import { Duplex } from 'node:stream'
import { responseHeadOf } from './headers.js'

const { NGHTTP2_NO_ERROR, NGHTTP2_CANCEL, NGHTTP2_INTERNAL_ERROR } = constants
// RST_STREAM codes by value (RFC 9113, section 7), as node:http2 names them in its errors.
const CODE_NAMES = [
  'NGHTTP2_NO_ERROR',
  'NGHTTP2_PROTOCOL_ERROR',
  'NGHTTP2_INTERNAL_ERROR',
  'NGHTTP2_FLOW_CONTROL_ERROR',
  'NGHTTP2_SETTINGS_TIMEOUT',
  'NGHTTP2_STREAM_CLOSED',
  'NGHTTP2_FRAME_SIZE_ERROR',
  'NGHTTP2_REFUSED_STREAM',
  'NGHTTP2_CANCEL',
  'NGHTTP2_COMPRESSION_ERROR',
  'NGHTTP2_CONNECT_ERROR',
  'NGHTTP2_ENHANCE_YOUR_CALM',
  'NGHTTP2_INADEQUATE_SECURITY',
  'NGHTTP2_HTTP_1_1_REQUIRED',
]
// Flags of the HEADERS frame a `response` listener receives.
const END_STREAM = 0x1
const END_HEADERS = 0x4

export interface TapedStreamInit {
  /** The session the stream belongs to (what `stream.session` returns). */
  session: object
  sentHeaders: OutgoingHttpHeaders
  id: number
  /** Answers the request once its body has ended; `signal` aborts when the caller gives up. */
  answer(body: Buffer, signal: AbortSignal): Promise<Response>
  /** Called on every chunk sent or received: the session's idle timer counts it. */
  onActivity(): void
}

/**
 * A `ClientHttp2Stream` answered by the tape: the request body is collected until the caller ends
 * it, the answer (a `Response`, replayed or recorded) is then given back as node:http2 gives a
 * response: a `response` event with `:status` and the headers, the body as the readable side,
 * `close` with `rstCode`. No frame is sent anywhere.
 */
export class TapedHttp2Stream extends Duplex {
  readonly session: object
  readonly sentHeaders: OutgoingHttpHeaders
  readonly sentInfoHeaders: OutgoingHttpHeaders[] = []
  id: number | undefined
  pending = true
  rstCode: number = NGHTTP2_NO_ERROR
  aborted = false
  endAfterHeaders = false
  private readonly init: TapedStreamInit
  private readonly chunks: Buffer[] = []
  private readonly caller = new AbortController()
  private reader: ReadableStreamDefaultReader<Uint8Array> | undefined
  private pulling = false
  private closing = false
  private timer: NodeJS.Timeout | undefined

  constructor(init: TapedStreamInit) {
    super()
    this.init = init
    this.session = init.session
    this.sentHeaders = init.sentHeaders
    process.nextTick(() => {
      if (this.destroyed) return
      this.id = init.id
      this.pending = false
      this.emit('ready')
    })
  }

  get bufferSize(): number {
    return this.writableLength
  }

  /** Closes the stream with an RST_STREAM code, as node:http2 does (`NGHTTP2_NO_ERROR` by default). */
  close(code: number = NGHTTP2_NO_ERROR, callback?: () => void): void {
    if (this.closing || this.destroyed) return
    if (callback) this.once('close', callback)
    this.closeWith(code)
    this.stopAnswer(undefined)
    process.nextTick(() => {
      // As node:http2 does once the peer has the reset: closed cleanly, the body ends where it
      // stopped (data already read is still the caller's); otherwise the stream is destroyed.
      if (!this.readable || code !== NGHTTP2_NO_ERROR) this.destroy()
      else {
        this.once('end', () => this.destroy())
        this.push(null)
        this.read(0)
      }
    })
  }

  /** An inactivity timeout: `timeout` is emitted after `ms` without a chunk sent or received. */
  setTimeout(ms: number, callback?: () => void): this {
    if (this.destroyed) return this
    clearTimeout(this.timer)
    this.timer = undefined
    if (ms === 0) {
      if (callback) this.removeListener('timeout', callback)
      return this
    }
    this.timer = setTimeout(() => this.emit('timeout'), ms).unref()
    if (callback) this.once('timeout', callback)
    return this
  }

  priority(): void {
    // No frames are sent: a priority has nothing to change.
  }

  override _write(chunk: Buffer, _encoding: BufferEncoding, callback: (error?: Error | null) => void): void {
    this.chunks.push(chunk)
    this.touch()
    callback()
  }

  override _final(callback: (error?: Error | null) => void): void {
    callback()
    // Ended by close() before it was sent: there is nothing to answer.
    if (this.closing) return
    this.init.answer(Buffer.concat(this.chunks), this.caller.signal).then(
      (response) => this.respond(response),
      (error: unknown) => this.destroy(error instanceof Error ? error : new Error(String(error))),
    )
  }

  override _read(): void {
    void this.pull()
  }

  override _destroy(error: Error | null, callback: (error?: Error | null) => void): void {
    if (!this.closing) {
      const aborted = (error as { code?: string } | null)?.code === 'ABORT_ERR'
      this.closeWith(error ? (aborted ? NGHTTP2_CANCEL : NGHTTP2_INTERNAL_ERROR) : NGHTTP2_NO_ERROR)
    }
    if (!this.readableEnded) this.stopAnswer(error)
    const code = this.rstCode
    callback(error ?? (code === NGHTTP2_NO_ERROR || code === NGHTTP2_CANCEL ? null : streamError(code)))
  }

  private respond(response: Response): void {
    if (this.destroyed || this.closing) {
      response.body?.cancel().catch(() => {})
      return
    }
    const { headers, raw } = responseHeadOf(response)
    this.endAfterHeaders = response.body === null
    this.touch()
    this.emit('response', headers, this.endAfterHeaders ? END_STREAM | END_HEADERS : END_HEADERS, raw)
    if (this.destroyed) return
    if (!response.body) {
      this.push(null)
      return
    }
    this.reader = response.body.getReader()
    void this.pull()
  }

  private async pull(): Promise<void> {
    const reader = this.reader
    if (!reader || this.pulling) return
    this.pulling = true
    try {
      for (;;) {
        const next = await reader.read()
        if (this.destroyed || this.closing) return
        if (next.done) {
          this.push(null)
          return
        }
        this.touch()
        if (!this.push(Buffer.from(next.value))) return
      }
    } catch (error) {
      this.failAfterRead(error instanceof Error ? error : new Error(String(error)))
    } finally {
      this.pulling = false
    }
  }

  /**
   * Fails the stream once the caller has read the chunks that came before the error, as it would
   * have read them off the wire before the connection broke (a replay reads ahead in no time).
   */
  private failAfterRead(error: Error): void {
    if (this.destroyed) return
    if (this.readableLength === 0) {
      this.destroy(error)
      return
    }
    const onData = () => {
      if (this.readableLength > 0) return
      this.off('data', onData)
      process.nextTick(() => this.destroy(error))
    }
    this.on('data', onData)
  }

  /** The caller has given up: the answer stops too (a replayed stream's pacing, the tape's own request). */
  private stopAnswer(reason: Error | null | undefined): void {
    this.caller.abort(reason ?? new DOMException('The HTTP/2 stream was closed', 'AbortError'))
    this.reader?.cancel(reason).catch(() => {})
  }

  /** What node:http2 does as a stream closes: the code kept, the timer stopped, the writable side ended. */
  private closeWith(code: number): void {
    this.closing = true
    this.rstCode = code
    this.setTimeout(0)
    this.removeAllListeners('timeout')
    if (!this.writableEnded) {
      this.aborted = true
      this.emit('aborted')
      this.end()
    }
  }

  private touch(): void {
    this.timer?.refresh()
    this.init.onActivity()
  }
}

function streamError(code: number): Error {
  const name = CODE_NAMES[code] ?? String(code)
  return Object.assign(new Error(`Stream closed with error code ${name}`), { code: 'ERR_HTTP2_STREAM_ERROR' })
}
