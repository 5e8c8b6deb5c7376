import { EventEmitter } from 'node:events'
import {
  type ClientHttp2Session,
  type ClientSessionRequestOptions,
  constants,
  getDefaultSettings,
  type OutgoingHttpHeaders,
  type Settings,
} from 'node:http2'
import { openTapedStream, type StreamAnswer } from './open-stream.js'
import type { SendHttp2 } from './perform.js'
import type { TapedHttp2Stream } from './taped-stream.js'

export interface TapedSessionInit {
  origin: URL
  /** Answers each stream's request; `send` reaches the origin over this session's real connection. */
  answer: StreamAnswer
  /** Opens the real session behind this one, when a request must reach the origin. */
  connect(): ClientHttp2Session
}

/**
 * A `ClientHttp2Session` whose streams the tape answers. It opens no connection of its own: a
 * replay answers every stream from the cassette; recording (and a request the tape lets pass)
 * reaches the origin over a real session opened on first use and closed with this one.
 */
export class TapedHttp2Session extends EventEmitter {
  readonly type = constants.NGHTTP2_SESSION_CLIENT
  readonly encrypted: boolean
  readonly alpnProtocol: string
  readonly originSet: string[] | undefined
  readonly localSettings: Settings = getDefaultSettings()
  readonly remoteSettings: Settings = getDefaultSettings()
  connecting = true
  closed = false
  destroyed = false
  pendingSettingsAck = false
  private readonly init: TapedSessionInit
  private readonly streams = new Set<TapedHttp2Stream>()
  private nextId = 1
  private real: ClientHttp2Session | undefined
  private refed = true
  private timer: NodeJS.Timeout | undefined

  constructor(init: TapedSessionInit) {
    super()
    this.init = init
    this.encrypted = init.origin.protocol === 'https:'
    this.alpnProtocol = this.encrypted ? 'h2' : 'h2c'
    this.originSet = this.encrypted ? [init.origin.origin] : undefined
    process.nextTick(() => {
      if (this.destroyed) return
      this.connecting = false
      this.emit('connect', this)
      // The peer's settings, and its acknowledgement of ours, as a connection's first frames bring.
      this.emit('remoteSettings', this.remoteSettings)
      this.emit('localSettings', this.localSettings)
    })
  }

  request(headers?: OutgoingHttpHeaders, options: ClientSessionRequestOptions = {}): TapedHttp2Stream {
    if (this.destroyed) throw codedError('ERR_HTTP2_INVALID_SESSION', 'The session has been destroyed')
    if (this.closed)
      throw codedError('ERR_HTTP2_GOAWAY_SESSION', 'New streams cannot be created after receiving a GOAWAY')
    const stream = openTapedStream({
      session: this,
      origin: this.init.origin,
      headers,
      options,
      id: this.nextId,
      answer: this.init.answer,
      send: this.send,
      onActivity: () => this.timer?.refresh(),
    })
    this.nextId += 2
    this.streams.add(stream)
    stream.once('close', () => {
      this.streams.delete(stream)
      if (this.closed) this.destroyIfIdle()
    })
    this.timer?.refresh()
    return stream
  }

  settings(
    settings: Settings,
    callback?: (error: Error | null, settings: Settings, duration: number) => void,
  ) {
    if (this.destroyed) throw codedError('ERR_HTTP2_INVALID_SESSION', 'The session has been destroyed')
    Object.assign(this.localSettings, settings)
    this.pendingSettingsAck = true
    process.nextTick(() => {
      this.pendingSettingsAck = false
      this.emit('localSettings', this.localSettings)
      callback?.(null, this.localSettings, 0)
    })
  }

  ping(...args: unknown[]): boolean {
    const callback = args.find((arg) => typeof arg === 'function') as
      | ((error: Error | null, duration: number, payload: Buffer) => void)
      | undefined
    const payload = Buffer.isBuffer(args[0]) ? args[0] : Buffer.alloc(8)
    process.nextTick(() => callback?.(null, 0, payload))
    return true
  }

  /** An idle timeout: `timeout` is emitted after `ms` with no stream opened, sending or receiving. */
  setTimeout(ms: number, callback?: () => void): void {
    clearTimeout(this.timer)
    this.timer = undefined
    if (ms === 0) {
      if (callback) this.removeListener('timeout', callback)
      return
    }
    this.timer = setTimeout(() => this.emit('timeout'), ms).unref()
    if (callback) this.once('timeout', callback)
  }

  ref(): void {
    this.refed = true
    this.real?.ref()
  }

  unref(): void {
    this.refed = false
    this.real?.unref()
  }

  /** Ends the session once its open streams have: no new stream may start. */
  close(callback?: () => void): void {
    if (this.closed || this.destroyed) return
    this.closed = true
    if (callback) this.once('close', callback)
    this.destroyIfIdle()
  }

  destroy(error?: Error | number, code?: number): void {
    if (this.destroyed) return
    const reason = typeof error === 'number' ? undefined : error
    const rst = typeof error === 'number' ? error : code
    this.destroyed = true
    this.closed = true
    this.setTimeout(0)
    for (const stream of this.streams) stream.destroy(reason)
    // Without an error, what the real session still carries (the tape's copy of an answer) ends first.
    if (reason || rst !== undefined) this.real?.destroy(reason, rst)
    else this.real?.close()
    process.nextTick(() => {
      if (reason) this.emit('error', reason)
      this.emit('close')
    })
  }

  goaway(...args: Parameters<ClientHttp2Session['goaway']>): void {
    this.real?.goaway(...args)
  }

  setLocalWindowSize(size: number): void {
    this.real?.setLocalWindowSize(size)
  }

  private readonly send: SendHttp2 = (headers, options) => {
    if (!this.real || this.real.closed || this.real.destroyed) {
      const real = this.init.connect()
      // Its failures reach the streams on it, which the tape records; the session's own
      // `error` event, with no listener, would throw.
      real.on('error', () => {})
      if (!this.refed) real.unref()
      this.real = real
    }
    return this.real.request(headers, options)
  }

  private destroyIfIdle(): void {
    if (this.streams.size === 0) this.destroy()
  }
}

function codedError(code: string, message: string): Error {
  return Object.assign(new Error(message), { code })
}
