import {
  createServer,
  type Http2ServerRequest,
  type Http2ServerResponse,
  type Http2Session,
} from 'node:http2'
import type { AddressInfo } from 'node:net'
import type { CountingServer } from './counting-server.js'

/** A request as the server read it: the request line and the body as text. */
export interface H2cRequest {
  method: string
  path: string
  headers: Http2ServerRequest['headers']
  body: string
}

/**
 * A loopback HTTP/2 server over cleartext (h2c) that counts connections: `answer` writes each
 * response once the request body has been read.
 */
export async function startH2cServer(
  answer: (request: H2cRequest, res: Http2ServerResponse) => void,
): Promise<CountingServer> {
  let connections = 0
  let requests = 0
  const sessions = new Set<Http2Session>()
  const server = createServer(async (req, res) => {
    requests += 1
    let body = ''
    for await (const chunk of req) body += chunk
    answer({ method: req.method, path: req.url, headers: req.headers, body }, res)
  })
  server.on('connection', () => {
    connections += 1
  })
  server.on('session', (session) => {
    sessions.add(session)
    session.on('close', () => sessions.delete(session))
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
        for (const session of sessions) session.destroy()
        server.close(() => resolve())
      }),
  }
}
