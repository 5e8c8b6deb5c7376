import { Duplex } from 'node:stream'

/**
 * One end of an in-memory connection: what one end writes, the other reads. It stands for the
 * TCP socket of a taped WebSocket session, so it answers the calls clients and servers make on
 * one (`setTimeout`, `setNoDelay`, `ref`, …) as a connected socket would, and does nothing else.
 */
export class PairedSocket extends Duplex {
  /** The other end, set by {@link socketPair}. */
  peer: PairedSocket | undefined
  readonly remoteAddress = '127.0.0.1'
  readonly remoteFamily = 'IPv4'
  readonly localAddress = '127.0.0.1'
  readonly connecting = false
  readonly encrypted: boolean

  constructor(encrypted: boolean) {
    super({ allowHalfOpen: false })
    this.encrypted = encrypted
  }

  override _read(): void {
    // Fed by the peer's writes.
  }

  /**
   * Set on a server end whose client takes the handshake's answer out of band (undici's
   * dispatcher hands a client the socket with the headers): the HTTP head this end writes goes
   * here instead of to the peer, and the frames after it go on.
   */
  headTaken: ((head: string) => void) | undefined
  private head = Buffer.alloc(0)

  override _write(chunk: Buffer, _encoding: BufferEncoding, callback: (error?: Error | null) => void): void {
    let bytes = chunk
    if (this.headTaken) {
      this.head = Buffer.concat([this.head, chunk])
      const end = this.head.indexOf('\r\n\r\n')
      if (end < 0) {
        callback()
        return
      }
      const taken = this.headTaken
      this.headTaken = undefined
      bytes = this.head.subarray(end + 4)
      taken(this.head.subarray(0, end).toString('latin1'))
    }
    if (bytes.length > 0) this.deliver(bytes)
    callback()
  }

  override _final(callback: (error?: Error | null) => void): void {
    this.deliver(null)
    callback()
  }

  /**
   * Hands the peer `bytes` (`null`: the end) on a later tick, as a network would: never inside
   * the write that sent them. The `ws` package's `close()` is not re-entrant: were a close
   * frame read inside the write that sent it, the answering frame would reach the closing end
   * before its `close()` had marked it closing, that end would close a second time, and the
   * first of its two 30 s close timers would never be cleared (the process would wait for it).
   * Ticks run in order, so the peer reads the bytes, the end and a `destroy` as they were sent.
   */
  private deliver(bytes: Buffer | null): void {
    const peer = this.peer
    process.nextTick(() => {
      if (peer && !peer.destroyed) peer.push(bytes)
    })
  }

  override _destroy(error: Error | null, callback: (error?: Error | null) => void): void {
    const peer = this.peer
    // The other end sees the connection close, not the error: each end reports its own.
    if (peer && !peer.destroyed) process.nextTick(() => peer.destroy())
    callback(error)
  }

  setTimeout(_ms: number, callback?: () => void): this {
    if (callback) this.once('timeout', callback)
    return this
  }

  setNoDelay(): this {
    return this
  }

  setKeepAlive(): this {
    return this
  }

  ref(): this {
    return this
  }

  unref(): this {
    return this
  }
}

/** Two connected ends: the client's (what `http.request` is given) and the server's. */
export function socketPair(encrypted: boolean): [client: PairedSocket, server: PairedSocket] {
  const client = new PairedSocket(encrypted)
  const server = new PairedSocket(encrypted)
  client.peer = server
  server.peer = client
  return [client, server]
}

/** What the server end reads before the frames: the request line and headers of the upgrade. */
export interface UpgradeHead {
  method: string
  url: string
  /** Lower-case names, as `IncomingMessage#headers` has them. */
  headers: Record<string, string>
}

/**
 * Reads the HTTP request head a client writes to `socket`, and puts back what follows it (a
 * client may write its first frames at once). Resolves `undefined` if the socket closes first.
 */
export function readUpgradeHead(
  socket: PairedSocket,
): Promise<{ head: UpgradeHead; rest: Buffer } | undefined> {
  return new Promise((resolve) => {
    let received = Buffer.alloc(0)
    const onData = (chunk: Buffer) => {
      received = Buffer.concat([received, chunk])
      const end = received.indexOf('\r\n\r\n')
      if (end < 0) return
      socket.off('data', onData)
      socket.off('close', onClose)
      socket.pause()
      const [requestLine = '', ...lines] = received.subarray(0, end).toString('latin1').split('\r\n')
      const [method = 'GET', url = '/'] = requestLine.split(' ')
      const headers: Record<string, string> = {}
      for (const line of lines) {
        const colon = line.indexOf(':')
        if (colon <= 0) continue
        const name = line.slice(0, colon).trim().toLowerCase()
        const value = line.slice(colon + 1).trim()
        headers[name] = headers[name] === undefined ? value : `${headers[name]}, ${value}`
      }
      resolve({ head: { method, url, headers }, rest: received.subarray(end + 4) })
    }
    const onClose = () => resolve(undefined)
    socket.on('data', onData)
    socket.once('close', onClose)
  })
}
