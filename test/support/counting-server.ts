import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'

export interface CountingServer {
  /** `http://127.0.0.1:<port>` */
  origin: string
  port: number
  /** TCP connections accepted so far: 0 proves nothing reached this server. */
  readonly connections: number
  /** Requests answered so far (a keep-alive connection carries several). */
  readonly requests: number
  close(): Promise<void>
}

/** A loopback HTTP server that answers every request with a small JSON body and counts connections. */
export async function startCountingServer(name: string): Promise<CountingServer> {
  let connections = 0
  let requests = 0
  const server: Server = createServer((req, res) => {
    requests += 1
    const body = JSON.stringify({ server: name, path: req.url })
    res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) })
    res.end(body)
  })
  server.on('connection', () => {
    connections += 1
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  return {
    origin: `http://127.0.0.1:${port}`,
    port,
    get connections() {
      return connections
    },
    get requests() {
      return requests
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections()
        server.close(() => resolve())
      }),
  }
}
