import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http'
import { type AddressInfo, connect, type Socket } from 'node:net'
import { TLSSocket } from 'node:tls'
import { maskForPrinting, runWithTape, type Tape } from '@agent-tape/core/internal'
import { isLoopbackHost } from '../endpoints.js'
import type { BoundaryConfig, RequestOutcome } from '../handle-request.js'
import type { ProcessSlot } from '../process/session.js'
import { knowBody } from '../request-body.js'
import { loadRequestHandling } from '../request-handling.js'
import { PROXY_USER, slotOfTag } from './address.js'
import type { RunCa } from './run-ca.js'

/** Something a client of the gateway asked for that it did not record or replay, named in the report. */
export interface GatewayNotice {
  /** `CONNECT api.example.com:443`, `POST http://10.0.0.5/v1/chat`, or what a client sent. */
  request: string
  /** Why it was not taped: said after the request in the report. */
  why: string
}

export interface GatewayOptions {
  mode: 'record' | 'replay' | 'live-tools'
  /** The upstream of each route (see `upstreamsOf`). */
  upstreams: Record<string, string>
  boundary: BoundaryConfig
  /** The tape of the process in a place, opened on its first request. */
  tapeFor(slot: ProcessSlot, socket: Socket): Promise<Tape>
  /** The largest request body taken, in bytes. */
  maxRequestBytes: number
  /** The port to listen on; 0 (default) takes a free one. */
  port?: number
  /** With a run's certificate authority, HTTPS tunnels are ended here and taped (see `createRunCa`). */
  ca?: RunCa
}

export interface Gateway {
  /** `http://127.0.0.1:<port>`. */
  readonly url: string
  readonly notices: readonly GatewayNotice[]
  /** Stops taking requests, ends every connection, and resolves once the requests in hand are answered. */
  close(): Promise<void>
}

/** A request whose place the gateway cannot tell (a client that drops the proxy's credentials). */
const UNPLACED: ProcessSlot = { path: 'unplaced', lane: 'unplaced' }

/**
 * Headers about the client's connection to the gateway or about the proxy itself, never sent on:
 * the gateway's own connection upstream is fetch's to manage (RFC 9110 §7.6.1).
 */
const NOT_SENT_ON = new Set([
  'connection',
  'keep-alive',
  'proxy-connection',
  'proxy-authorization',
  'te',
  'trailer',
  'transfer-encoding',
  'upgrade',
  'host',
  'content-length',
  'expect',
])

/** Headers of an answer that describe bytes fetch has already decoded, or the gateway's connection. */
const NOT_SENT_BACK = new Set([
  'content-encoding',
  'content-length',
  'transfer-encoding',
  'connection',
  'keep-alive',
])

/**
 * The loopback gateway of a recorded or replayed command, for its processes that are not Node: a
 * base URL for model SDKs in every language (`OPENAI_BASE_URL=http://127.0.0.1:<port>/@<place>/openai`)
 * and an HTTP proxy for every client that honours the proxy variables. Each request is decided
 * as a Node process's would be, by the same `handleRequest`, for the tape of the client's place in
 * the process tree (named by the URL's path or the proxy credentials): recorded through the same
 * codecs and keys, replayed with no connection, refused on a miss with the provider's error shape.
 * What it cannot tape is named in `notices`: a tunnel (`CONNECT`, HTTPS through the proxy) passes
 * while recording and is refused in replay, as is a client that does not speak HTTP/1.1 to it.
 */
export async function startGateway(options: GatewayOptions): Promise<Gateway> {
  await loadRequestHandling()
  const { handleRequest } = await import('../handle-request.js')
  const notices: GatewayNotice[] = []
  /** Names what was not taped, as everything agent-tape prints: a secret in it masked (a key in a path, a host's credentials). */
  const note = (notice: GatewayNotice) =>
    notices.push({ request: maskForPrinting(notice.request), why: maskForPrinting(notice.why) })
  const sockets = new Set<Socket>()
  /** The HTTPS tunnels ended here: the origin their requests go to, and the place of the client that opened them. */
  const tunnels = new WeakMap<Socket, { origin: string; slot: ProcessSlot }>()
  const inHand = new Set<Promise<void>>()
  const server = createServer({ requestTimeout: 0 }, (req, res) => {
    const work = serve(req, res).catch((error: unknown) => {
      if (!res.headersSent) refuse(res, 502, `the gateway could not answer: ${describeError(error)}`)
      else res.destroy()
    })
    inHand.add(work)
    void work.finally(() => inHand.delete(work))
  })
  server.on('connection', (socket) => {
    sockets.add(socket)
    socket.on('close', () => sockets.delete(socket))
  })
  server.on('clientError', (error: NodeJS.ErrnoException & { rawPacket?: Buffer }, socket: Socket) => {
    const head = error.rawPacket?.subarray(0, 24).toString('latin1') ?? ''
    if (head.startsWith('PRI * HTTP/2.0')) {
      note({
        request: 'an HTTP/2 connection',
        why: 'a client spoke HTTP/2 with prior knowledge; the gateway speaks HTTP/1.1',
      })
    } else if (error.code !== 'ECONNRESET' && !tunnels.has(socket)) {
      note({ request: 'a request the gateway could not read', why: `${error.code ?? error.message}` })
    }
    if (socket.writable)
      socket.end('HTTP/1.1 400 Bad Request\r\nconnection: close\r\nx-agent-tape: not http/1.1\r\n\r\n')
    else socket.destroy()
  })
  server.on('connect', (req: IncomingMessage, client: Socket, head: Buffer) => tunnel(req, client, head))
  await listen(server, options.port ?? 0)
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  const self = new URL(url).host

  async function serve(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const target = targetOf(req)
    if ('refused' in target) {
      note({ request: `${req.method} ${(req.url ?? '').split('?')[0]}`, why: target.refused })
      refuse(res, 404, target.refused)
      return
    }
    const body = await readBody(req, options.maxRequestBytes)
    if (body === 'too large') {
      const why = `its body is larger than the gateway's limit of ${options.maxRequestBytes} bytes`
      note({ request: `${req.method} ${target.url.origin}${target.url.pathname}`, why })
      refuse(res, 413, why)
      req.resume()
      return
    }
    const request = new Request(target.url, {
      method: req.method ?? 'GET',
      headers: headersOf(req),
      ...(body && body.byteLength > 0 ? { body } : {}),
      redirect: 'manual',
    })
    if (body && body.byteLength > 0) knowBody(request, body)
    const tape = await options.tapeFor(target.slot, req.socket)
    let outcome: RequestOutcome
    try {
      outcome = await runWithTape(tape, () => handleRequest(request, options.boundary, perform))
    } catch (error) {
      outcome = { type: 'error', error: error as Error }
    }
    if (outcome.type === 'error') {
      refuse(res, 502, describeError(outcome.error))
      return
    }
    const response = outcome.type === 'passthrough' ? await perform(request) : outcome.response
    await answer(res, response)
  }

  /** Where a request goes, and for whom: a route of a base URL, or the URL a proxy client asked for. */
  function targetOf(req: IncomingMessage): { url: URL; slot: ProcessSlot } | { refused: string } {
    const raw = req.url ?? '/'
    const tunnel = tunnels.get(req.socket)
    if (tunnel) return { url: new URL(raw, tunnel.origin), slot: tunnel.slot }
    if (raw.startsWith('/')) return routed(raw)
    let url: URL
    try {
      url = new URL(raw)
    } catch {
      return { refused: 'it names no URL the gateway can read' }
    }
    // A base-URL request that a client sent through the proxy variables to the gateway itself.
    if (url.host === self) return routed(`${url.pathname}${url.search}`)
    return { url, slot: slotOfCredentials(req.headers['proxy-authorization']) }
  }

  function routed(path: string): { url: URL; slot: ProcessSlot } | { refused: string } {
    const match = /^\/@([A-Za-z0-9_-]+)\/([a-z0-9-]+)(\/[^?]*)?(\?.*)?$/.exec(path)
    const place = match && slotOfTag(match[1]!)
    const upstream = match && (place?.upstreams[match[2]!] ?? options.upstreams[match[2]!])
    if (!match || !place || !upstream) {
      return {
        refused: `${path.split('?')[0]} is not one of the gateway's routes (a base URL of a model SDK, http://127.0.0.1:<port>/@<place>/<provider>)`,
      }
    }
    return { url: new URL(`${upstream}${match[3] ?? ''}${match[4] ?? ''}`), slot: place.slot }
  }

  /**
   * A tunnel (`CONNECT`, HTTPS through the proxy): with the run's certificate authority, its TLS
   * is ended here and its requests are taped as any other; without, it passes while recording
   * (named: its bytes are encrypted end to end) and is refused in replay. Loopback passes either
   * way, as it does for Node processes.
   */
  function tunnel(req: IncomingMessage, client: Socket, head: Buffer): void {
    const target = req.url ?? ''
    const at = target.lastIndexOf(':')
    const host = target.slice(0, at).replace(/^\[|\]$/g, '')
    const port = Number(target.slice(at + 1) || 443)
    client.on('error', () => {})
    if (options.ca) {
      endTunnel(client, head, host, target, slotOfCredentials(req.headers['proxy-authorization']))
      return
    }
    if (!isLoopbackHost(host)) {
      note({
        request: `CONNECT ${target}`,
        why:
          options.mode === 'record'
            ? 'an HTTPS tunnel through the proxy: its bytes are encrypted end to end, so it passed unrecorded (--intercept-https records it)'
            : 'an HTTPS tunnel through the proxy, which a replay cannot answer without --intercept-https',
      })
      if (options.mode !== 'record') {
        client.end('HTTP/1.1 403 Forbidden\r\nx-agent-tape: refused in replay\r\n\r\n')
        return
      }
    }
    const upstream = connect(port, host, () => {
      client.write('HTTP/1.1 200 Connection Established\r\n\r\n')
      upstream.write(head)
      upstream.pipe(client)
      client.pipe(upstream)
    })
    upstream.on('error', () => client.end('HTTP/1.1 502 Bad Gateway\r\n\r\n'))
    client.on('close', () => upstream.destroy())
  }

  /**
   * Ends a tunnel's TLS with a certificate for its host from the run's authority, and serves its
   * requests as the proxy's own. A client that refuses the certificate (it pins its own
   * authority, or does not read the variables that name the run's) is named: what it would have
   * sent is not seen.
   */
  function endTunnel(client: Socket, head: Buffer, host: string, target: string, slot: ProcessSlot): void {
    client.write('HTTP/1.1 200 Connection Established\r\n\r\n')
    if (head.byteLength > 0) client.unshift(head)
    const secure = new TLSSocket(client, {
      isServer: true,
      secureContext: options.ca!.contextFor(host),
      ALPNProtocols: ['http/1.1'],
    })
    let settled = false
    const refused = (why: string) => {
      if (settled) return
      settled = true
      note({
        request: `CONNECT ${target}`,
        why: `the client refused the run's certificate (${why}): it pins its own authority or does not read SSL_CERT_FILE, so what it sent was not seen`,
      })
    }
    secure.once('secure', () => {
      settled = true
    })
    secure.on('error', (error: NodeJS.ErrnoException) => {
      refused(error.code ?? error.message)
      secure.destroy()
    })
    secure.once('close', () => refused('it closed the connection during the handshake'))
    tunnels.set(secure, { origin: `https://${target}`, slot })
    server.emit('connection', secure)
  }

  return {
    url,
    notices,
    close: async () => {
      await new Promise<void>((resolve) => {
        server.close(() => resolve())
        server.closeIdleConnections()
        setTimeout(() => {
          for (const socket of sockets) socket.destroy()
        }, 50).unref()
      })
      await Promise.allSettled([...inHand])
    },
  }
}

/** The gateway's own request upstream: Node's fetch, which nothing in the gateway's process intercepts. */
function perform(request: Request): Promise<Response> {
  return fetch(request)
}

/** An error and its causes, as one line: `fetch failed: self-signed certificate`. */
function describeError(error: unknown): string {
  const parts: string[] = []
  for (let e = error; e instanceof Error && parts.length < 4; e = e.cause) parts.push(e.message)
  return parts.join(': ') || String(error)
}

function slotOfCredentials(header: string | undefined): ProcessSlot {
  const match = /^Basic\s+(.+)$/i.exec(header ?? '')
  if (!match) return UNPLACED
  const decoded = Buffer.from(match[1]!, 'base64').toString('utf8')
  const colon = decoded.indexOf(':')
  if (decoded.slice(0, colon) !== PROXY_USER) return UNPLACED
  return slotOfTag(decoded.slice(colon + 1))?.slot ?? UNPLACED
}

function headersOf(req: IncomingMessage): Headers {
  const headers = new Headers()
  for (let i = 0; i < req.rawHeaders.length; i += 2) {
    const name = req.rawHeaders[i]!
    if (!NOT_SENT_ON.has(name.toLowerCase())) headers.append(name, req.rawHeaders[i + 1]!)
  }
  return headers
}

async function readBody(req: IncomingMessage, limit: number): Promise<Buffer | undefined | 'too large'> {
  if (req.method === 'GET' || req.method === 'HEAD') return undefined
  const declared = Number(req.headers['content-length'])
  if (declared > limit) return 'too large'
  const chunks: Buffer[] = []
  let size = 0
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.byteLength
    if (size > limit) return 'too large'
    chunks.push(chunk)
  }
  return Buffer.concat(chunks)
}

/** Hands an answer to the client as it comes: a stream chunk by chunk, as the model sent it. */
async function answer(res: ServerResponse, response: Response): Promise<void> {
  const headers: Record<string, string[]> = {}
  for (const [name, value] of response.headers) {
    if (NOT_SENT_BACK.has(name) || name === 'set-cookie') continue
    headers[name] = [...(headers[name] ?? []), value]
  }
  const cookies = response.headers.getSetCookie()
  if (cookies.length > 0) headers['set-cookie'] = cookies
  res.writeHead(response.status, response.statusText, headers)
  res.flushHeaders()
  if (response.body) {
    for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) {
      if (res.destroyed) break
      res.write(chunk)
    }
  }
  res.end()
}

function refuse(res: ServerResponse, status: number, why: string): void {
  res.writeHead(status, {
    'content-type': 'text/plain; charset=utf-8',
    'x-agent-tape': 'refused',
    'x-should-retry': 'false',
  })
  res.end(`[agent-tape] ${why}\n`)
}

function listen(server: Server, port: number): Promise<void> {
  return new Promise((resolve, reject) => {
    server.once('error', reject)
    server.listen(port, '127.0.0.1', () => {
      server.removeListener('error', reject)
      resolve()
    })
  })
}
