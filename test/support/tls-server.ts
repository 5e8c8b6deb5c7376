import { spawnSync } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { createServer } from 'node:https'
import type { AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

export interface TlsServer {
  /** `https://127.0.0.1:<port>` */
  origin: string
  port: number
  /** The server's self-signed certificate (PEM file): what a client must trust to reach it. */
  certFile: string
  /** TCP connections accepted so far: 0 proves nothing reached this server. */
  readonly connections: number
  close(): Promise<void>
}

/**
 * A loopback HTTPS server with a certificate made for it by `openssl` (for 127.0.0.1), counting
 * its connections: `POST /v1/chat/completions` gets a chat completion in the OpenAI format (its
 * answer `Hello over TLS.`), any other request a small JSON body that names the path.
 */
export async function startTlsServer(name: string): Promise<TlsServer> {
  const { dir, key, certFile } = makeCertificate()
  let connections = 0
  const server = createServer({ key: readFileSync(key), cert: readFileSync(certFile) }, (req, res) => {
    req.resume()
    const body = JSON.stringify(
      req.method === 'POST' && req.url === '/v1/chat/completions'
        ? {
            id: 'chatcmpl-tls',
            object: 'chat.completion',
            created: 1_700_000_000,
            model: 'gpt-4o-mini',
            choices: [
              { index: 0, message: { role: 'assistant', content: 'Hello over TLS.' }, finish_reason: 'stop' },
            ],
            usage: { prompt_tokens: 5, completion_tokens: 4, total_tokens: 9 },
          }
        : { server: name, path: req.url, method: req.method },
    )
    res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) })
    res.end(body)
  })
  server.on('connection', () => {
    connections += 1
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  return {
    origin: `https://127.0.0.1:${port}`,
    port,
    certFile,
    get connections() {
      return connections
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections()
        server.close(() => {
          rmSync(dir, { recursive: true, force: true })
          resolve()
        })
      }),
  }
}

/**
 * A key and a self-signed certificate for 127.0.0.1, made by `openssl` in a folder of their own
 * (removed by the caller): the certificate is what a client must trust.
 */
export function makeCertificate(): { dir: string; key: string; certFile: string } {
  const dir = mkdtempSync(join(tmpdir(), 'agent-tape-tls-'))
  const key = join(dir, 'key.pem')
  const certFile = join(dir, 'cert.pem')
  const made = spawnSync(
    'openssl',
    [
      'req',
      '-x509',
      '-newkey',
      'rsa:2048',
      '-nodes',
      '-keyout',
      key,
      '-out',
      certFile,
      '-days',
      '1',
      '-subj',
      '/CN=127.0.0.1',
      '-addext',
      'subjectAltName=IP:127.0.0.1',
    ],
    { encoding: 'utf8', stdio: 'pipe' },
  )
  if (made.status !== 0)
    throw new Error(`openssl could not make the test server's certificate:\n${made.stderr}`)
  return { dir, key, certFile }
}
