import http from 'node:http'
import http2 from 'node:http2'
import https from 'node:https'
import net from 'node:net'
import tls from 'node:tls'
import axios from 'axios'
import got from 'got'
import * as undici from 'undici7'

// The clients of the zero-network matrix (docs/network.md), each as a function of an origin and
// a path that resolves to the JSON the server answered: the test of the boundary installed
// before a file's tapes, and the test of the same on a file's first tape, run them all.

/** Reads a node:http(s) response to the end, or fails with the request's error. */
export function nodeGet(
  client: typeof http | typeof https,
  url: string,
  agent?: http.Agent,
): Promise<string> {
  return new Promise((resolve, reject) => {
    const req = client.get(url, agent ? { agent } : {}, (res) => {
      let text = ''
      res.on('data', (chunk) => {
        text += chunk
      })
      res.on('end', () => resolve(text))
      res.on('error', reject)
    })
    req.on('error', reject)
  })
}

export function socketOutcome(socket: net.Socket): Promise<string> {
  return new Promise((resolve, reject) => {
    socket.on('connect', () => {
      socket.destroy()
      resolve('connected')
    })
    socket.on('error', reject)
  })
}

export type Client = (origin: string, path: string) => Promise<unknown>

/** Clients agent-tape captures: their requests are recorded and replayed. */
export const CAPTURED: Record<string, Client> = {
  'global fetch': async (o, p) => (await fetch(`${o}${p}`)).json(),
  'global fetch with an undici Agent': async (o, p) =>
    (await fetch(`${o}${p}`, { dispatcher: new undici.Agent() } as unknown as RequestInit)).json(),
  'undici 7 fetch': async (o, p) => (await undici.fetch(`${o}${p}`)).json(),
  'undici 7 request': async (o, p) => (await undici.request(`${o}${p}`)).body.json(),
  'node:http': async (o, p) => JSON.parse(await nodeGet(http, `${o}${p}`)),
  'node:http with a keep-alive agent': async (o, p) =>
    JSON.parse(await nodeGet(http, `${o}${p}`, new http.Agent({ keepAlive: true }))),
  axios: async (o, p) => (await axios.get(`${o}${p}`)).data,
  got: async (o, p) => got(`${o}${p}`).json(),
  'node:http2': (o, p) =>
    new Promise((resolve, reject) => {
      const session = http2.connect(o)
      session.on('error', reject)
      const stream = session.request({ ':path': p })
      let text = ''
      stream.on('data', (chunk) => {
        text += chunk
      })
      stream.on('end', () => {
        session.close()
        resolve(JSON.parse(text))
      })
      stream.on('error', reject)
    }),
}
// Recorded against a server that speaks HTTP/2 (a replay reaches no server, whatever it speaks).
export const OVER_HTTP2 = new Set(['node:http2'])

/** Clients agent-tape cannot answer for: refused at the socket while a tape records or replays. */
export const REFUSED: Record<string, [string, Client]> = {
  'undici 7 Client': [
    'the undici package',
    async (o, p) => (await new undici.Client(o).request({ path: p, method: 'GET' })).body.json(),
  ],
  'undici 7 Pool': [
    'the undici package',
    async (o, p) => (await new undici.Pool(o).request({ path: p, method: 'GET' })).body.json(),
  ],
  'undici 7 request with its own Agent': [
    'the undici package',
    async (o, p) => (await undici.request(`${o}${p}`, { dispatcher: new undici.Agent() })).body.json(),
  ],
  'node:https with a custom agent': [
    'node:http/https',
    (o, p) =>
      nodeGet(https, `${o.replace('http:', 'https:')}${p}`, new https.Agent({ rejectUnauthorized: false })),
  ],
  'net.connect': ['net.connect', (o) => socketOutcome(net.connect(Number(new URL(o).port), '127.0.0.1'))],
  'tls.connect': [
    'tls.connect',
    (o) =>
      socketOutcome(
        tls.connect({ port: Number(new URL(o).port), host: '127.0.0.1', rejectUnauthorized: false }),
      ),
  ],
}
