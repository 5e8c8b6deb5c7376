import http2, { type ClientHttp2Session } from 'node:http2'
import type { AddressInfo } from 'node:net'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { performOverHttp2 } from './perform.js'
import { TapedHttp2Session } from './taped-session.js'

// A taped session is held to node:http2's own: the same calls on a real session to a loopback h2c
// server and on a taped one (which sends its requests on to that server) must look the same.
let server: http2.Http2Server
let origin: URL
let connections = 0

beforeAll(async () => {
  server = http2.createServer((req, res) => {
    if (req.url === '/hang') return
    res.end(`${req.method} ${req.url}`)
  })
  server.on('connection', () => {
    connections += 1
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  origin = new URL(`http://127.0.0.1:${(server.address() as AddressInfo).port}`)
})
afterAll(() => new Promise((resolve) => server.close(resolve)))

let realConnects = 0
function openTaped(): ClientHttp2Session {
  return new TapedHttp2Session({
    origin,
    answer: performOverHttp2,
    connect: () => {
      realConnects += 1
      return http2.connect(origin)
    },
  }) as unknown as ClientHttp2Session
}
const openReal = () => http2.connect(origin)

function fetchText(session: ClientHttp2Session, path: string, onResponse = () => {}): Promise<string> {
  return new Promise((resolve, reject) => {
    const stream = session.request({ ':path': path })
    stream.once('response', onResponse)
    let text = ''
    stream.setEncoding('utf8')
    stream.on('data', (chunk: string) => {
      text += chunk
    })
    stream.on('end', () => resolve(text))
    stream.on('error', reject)
  })
}

async function both<T>(run: (open: () => ClientHttp2Session) => Promise<T>): Promise<T> {
  const real = await run(openReal)
  const taped = await run(openTaped)
  expect(taped).toEqual(real)
  return taped
}

function closed(session: ClientHttp2Session): Promise<void> {
  return new Promise((resolve) => session.once('close', () => resolve()))
}

describe('a taped session behaves as a node:http2 session', () => {
  it('emits connect to the listener, answers requests, and closes once its streams have ended', async () => {
    const seen = await both(async (open) => {
      const session = open()
      const done = closed(session)
      const events: string[] = []
      session.once('connect', () => events.push(`connect ${session.connecting}`))
      const text = await fetchText(session, '/a')
      // Closed once the stream has its response, as the AWS SDK closes its sessions.
      const afterClose = await fetchText(session, '/b', () =>
        session.close(() => events.push('close callback')),
      )
      await done
      return { events, text, afterClose, closed: session.closed, destroyed: session.destroyed }
    })
    expect(seen).toEqual({
      events: ['connect false', 'close callback'],
      text: 'GET /a',
      afterClose: 'GET /b',
      closed: true,
      destroyed: true,
    })
  })

  it('refuses a stream after close() and after destroy(), with node:http2’s codes', async () => {
    const codes = await both(async (open) => {
      const code = (fn: () => unknown) => {
        try {
          fn()
          return undefined
        } catch (error) {
          return (error as { code?: string }).code
        }
      }
      const closing = open()
      const stream = closing.request({ ':path': '/hang' })
      stream.on('error', () => {})
      closing.close()
      const afterClose = code(() => closing.request({ ':path': '/x' }))
      closing.destroy()
      await closed(closing)
      return { afterClose, afterDestroy: code(() => closing.request({ ':path': '/x' })) }
    })
    expect(codes).toEqual({
      afterClose: 'ERR_HTTP2_GOAWAY_SESSION',
      afterDestroy: 'ERR_HTTP2_INVALID_SESSION',
    })
  })

  it('destroy(error) closes its open streams and emits error, then close', async () => {
    const seen = await both(async (open) => {
      const session = open()
      const events: string[] = []
      session.on('error', (error) => events.push(`session error ${error.message}`))
      session.on('close', () => events.push('session close'))
      await fetchText(session, '/warm')
      const stream = session.request({ ':path': '/hang' })
      stream.on('error', (error) => events.push(`stream error ${error.message}`))
      stream.on('close', () => events.push('stream close'))
      await new Promise((resolve) => setTimeout(resolve, 20))
      session.destroy(new Error('gone'))
      await closed(session)
      return events
    })
    expect(seen).toEqual(['stream error gone', 'stream close', 'session error gone', 'session close'])
  })

  it('acknowledges settings through the callback and keeps them', async () => {
    const seen = await both(async (open) => {
      const session = open()
      await new Promise((resolve) => session.once('connect', resolve))
      const acked = new Promise<unknown>((resolve) =>
        session.settings({ maxConcurrentStreams: 1 }, (error, settings) =>
          resolve({ error, max: settings.maxConcurrentStreams }),
        ),
      )
      const pending = session.pendingSettingsAck
      const result = { acked: await acked, pending, kept: session.localSettings.maxConcurrentStreams }
      session.close()
      return result
    })
    expect(seen).toEqual({ acked: { error: null, max: 1 }, pending: true, kept: 1 })
  })
})

it('opens no connection until a request must reach the origin, then one for all its streams, closed with it', async () => {
  const before = { connections, realConnects }
  const session = openTaped()
  await new Promise((resolve) => session.once('connect', resolve))
  session.ping(() => {})
  session.setTimeout(1000, () => {})
  session.unref()
  session.ref()
  expect({ connections, realConnects }).toEqual(before)
  expect([await fetchText(session, '/one'), await fetchText(session, '/two')]).toEqual([
    'GET /one',
    'GET /two',
  ])
  expect(connections).toBe(before.connections + 1)
  expect(realConnects).toBe(before.realConnects + 1)
  session.close()
  await closed(session)
})

it('emits timeout after the idle time set, counting stream activity', async () => {
  const session = openTaped()
  const started = performance.now()
  const fired = await new Promise<number>((resolve) => {
    session.setTimeout(60, () => resolve(performance.now() - started))
    setTimeout(() => void fetchText(session, '/keep'), 30)
  })
  expect(fired).toBeGreaterThanOrEqual(85)
  session.destroy()
})
