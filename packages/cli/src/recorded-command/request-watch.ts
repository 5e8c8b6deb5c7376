import { createServer, request as httpRequest, type IncomingMessage, type ServerResponse } from 'node:http'
import { type AddressInfo, connect, type Socket } from 'node:net'
import { isLoopbackHost } from '@agent-tape/http/internal'
import { PROXY_VARIABLES, WATCH_PROXY_ENV } from '@agent-tape/http/process'

/** A connection a process outside the boundary asked for, through the proxy variables. */
export interface WatchedRequest {
  /** `host:port` for a tunnel (`CONNECT`, HTTPS), or the URL's origin for plain HTTP. */
  target: string
  method: string
}

/**
 * Sees the requests of the command's processes that agent-tape does not reach: non-Node programs
 * (`curl`, Python, Go) and any client that honours `HTTP_PROXY`/`HTTPS_PROXY`, pointed at a
 * loopback proxy that only the non-Node processes keep (the preload removes the variables from
 * each Node process and adds them back for its children). While recording it passes them on and
 * notes them (their answers are not in the cassette); while replaying it refuses them. Loopback
 * targets pass in both, as they do for Node processes.
 */
export interface RequestWatch {
  /** The variables for the command's environment; none while recording behind a proxy of the user's own. */
  variables: Record<string, string>
  readonly seen: readonly WatchedRequest[]
  close(): Promise<void>
}

export async function startRequestWatch(
  mode: 'record' | 'replay',
  env: Record<string, string | undefined>,
): Promise<RequestWatch> {
  const seen: WatchedRequest[] = []
  // A proxy the user relies on stays theirs while recording: then there is nothing to watch with.
  if (mode === 'record' && PROXY_VARIABLES.some((name) => env[name])) {
    return { variables: {}, seen, close: async () => {} }
  }
  const sockets = new Set<Socket>()
  const server = createServer((req, res) => forward(req, res, mode, seen))
  server.on('connection', (socket) => {
    sockets.add(socket)
    socket.on('close', () => sockets.delete(socket))
  })
  server.on('connect', (req: IncomingMessage, client: Socket, head: Buffer) => {
    const target = req.url ?? ''
    const [host, port] = splitTarget(target)
    const loopback = isLoopbackHost(host)
    if (!loopback) seen.push({ target, method: 'CONNECT' })
    if (mode === 'replay' && !loopback) {
      client.end('HTTP/1.1 403 Forbidden\r\nx-agent-tape: refused in replay\r\n\r\n')
      return
    }
    const upstream = connect(Number(port), host, () => {
      client.write('HTTP/1.1 200 Connection Established\r\n\r\n')
      upstream.write(head)
      upstream.pipe(client)
      client.pipe(upstream)
    })
    upstream.on('error', () => client.end('HTTP/1.1 502 Bad Gateway\r\n\r\n'))
    client.on('error', () => upstream.destroy())
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  const variables: Record<string, string> = { [WATCH_PROXY_ENV]: url }
  for (const name of PROXY_VARIABLES) variables[name] = url
  return {
    variables,
    seen,
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy()
        server.close(() => resolve())
      }),
  }
}

function forward(
  req: IncomingMessage,
  res: ServerResponse,
  mode: 'record' | 'replay',
  seen: WatchedRequest[],
): void {
  let url: URL
  try {
    url = new URL(req.url ?? '')
  } catch {
    res.writeHead(400).end()
    return
  }
  const loopback = isLoopbackHost(url.hostname)
  if (!loopback) seen.push({ target: url.origin, method: req.method ?? 'GET' })
  if (mode === 'replay' && !loopback) {
    res.writeHead(403, { 'x-agent-tape': 'refused in replay' }).end()
    return
  }
  const upstream = httpRequest(url, { method: req.method, headers: req.headers }, (answer) => {
    res.writeHead(answer.statusCode ?? 502, answer.headers)
    answer.pipe(res)
  })
  upstream.on('error', () => {
    if (!res.headersSent) res.writeHead(502)
    res.end()
  })
  req.pipe(upstream)
}

function splitTarget(target: string): [string, string] {
  const at = target.lastIndexOf(':')
  const host = target.slice(0, at).replace(/^\[|\]$/g, '')
  return [host, target.slice(at + 1) || '443']
}

/** The watched requests as one line each, without repeats: `CONNECT api.example.com:443`. */
export function describeWatched(seen: readonly WatchedRequest[]): string[] {
  return [...new Set(seen.map((r) => `${r.method} ${r.target}`))]
}
