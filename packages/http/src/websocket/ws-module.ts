import type { IncomingMessage } from 'node:http'
import { createRequire } from 'node:module'
import type { WebSocket, WebSocketServer } from 'ws'
import type { PairedSocket, UpgradeHead } from './socket-pair.js'

type WsModule = { WebSocket: typeof WebSocket; WebSocketServer: typeof WebSocketServer }

let loaded: WsModule | undefined

/**
 * The `ws` package, loaded when the first session of the process opens (synchronously: the
 * client's `http.request` returns its request at once), so that a test file that opens no
 * WebSocket never loads it.
 */
export function wsModule(): WsModule {
  loaded ??= createRequire(import.meta.url)('ws') as WsModule
  return loaded
}

/**
 * Completes the upgrade `head` asked for on the server end of a session: the 101 with the
 * `protocol` the server chose (or none), then server-side framing over `socket`. `onOpen` gets
 * the session before any client frame is read, so that it misses none.
 */
export function acceptUpgrade(
  socket: PairedSocket,
  head: UpgradeHead,
  rest: Buffer,
  protocol: string | undefined,
  onOpen: (ws: WebSocket) => void,
): void {
  const { WebSocketServer } = wsModule()
  const server = new WebSocketServer({
    noServer: true,
    perMessageDeflate: false,
    handleProtocols: (offered) => (protocol !== undefined && offered.has(protocol) ? protocol : false),
  })
  server.handleUpgrade(head as unknown as IncomingMessage, socket as never, rest, (ws) => {
    onOpen(ws)
    // Paused while the head was read (and the upstream opened): the frames flow from now on.
    socket.resume()
  })
}

/** Answers the upgrade with an HTTP response instead (the server refused it), then ends. */
export function refuseUpgrade(
  socket: PairedSocket,
  status: number,
  headers: Record<string, string>,
  body: string,
): void {
  const bytes = Buffer.from(body, 'utf8')
  const lines = [`HTTP/1.1 ${status} ${STATUS_TEXT[status] ?? 'Error'}`]
  for (const [name, value] of Object.entries(headers))
    if (!/^(?:content-length|transfer-encoding|connection)$/i.test(name)) lines.push(`${name}: ${value}`)
  lines.push(`content-length: ${bytes.length}`, 'connection: close', '', '')
  socket.end(Buffer.concat([Buffer.from(lines.join('\r\n'), 'latin1'), bytes]))
}

const STATUS_TEXT: Record<number, string> = {
  400: 'Bad Request',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'Not Found',
  429: 'Too Many Requests',
  500: 'Internal Server Error',
  503: 'Service Unavailable',
}

/** Closes a session as the server did: with its code, or abruptly for the codes no frame carries. */
export function closeAs(ws: WebSocket, code: number, reason: string): void {
  if (code === 1006) ws.terminate()
  else if (code === 1005) ws.close()
  else ws.close(code, reason)
}
