import http2 from 'node:http2'
import type { AddressInfo } from 'node:net'
import { createMemoryStore, openTape, runWithTape } from '@agent-tape/core'
import { afterAll, beforeAll, expect, it } from 'vitest'
import type { BoundaryConfig } from '../handle-request.js'
import { interceptHttp2 } from './intercept-connect.js'

let server: http2.Http2Server
let port: number

beforeAll(async () => {
  server = http2.createServer((req, res) => res.end(`live ${req.url}`))
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  port = (server.address() as AddressInfo).port
})
afterAll(() => new Promise((resolve) => server.close(resolve)))

function config(): BoundaryConfig {
  return { modelEndpoints: [`http://127.0.0.1:${port}`], allowHosts: [], timing: 'instant' }
}

async function recordingTape() {
  return openTape({
    id: 't',
    cassettePath: 't.jsonl',
    store: createMemoryStore(),
    mode: 'auto',
    env: {},
    rerecordCommand: 'rerecord',
  })
}

function kindOf(session: http2.ClientHttp2Session): string {
  const name = session.constructor.name
  session.on('error', () => {})
  session.destroy()
  return name
}

it('replaces http2.connect while installed and puts node’s back on removal', () => {
  const original = http2.connect
  const remove = interceptHttp2(config())
  expect(http2.connect).not.toBe(original)
  remove()
  expect(http2.connect).toBe(original)
})

it('leaves a connect patched after it in place on removal', () => {
  const original = http2.connect
  const remove = interceptHttp2(config())
  const later = (() => {}) as unknown as typeof http2.connect
  http2.connect = later
  remove()
  expect(http2.connect).toBe(later)
  http2.connect = original
})

it('gives a taped session only to a tape that records or replays, for an origin it owns', async () => {
  const remove = interceptHttp2(config())
  try {
    const tape = await recordingTape()
    const modelEndpoint = `http://127.0.0.1:${port}`
    const inside = await runWithTape(tape, async () => ({
      owned: kindOf(http2.connect(modelEndpoint)),
      // Loopback that is no model endpoint passes through.
      loopback: kindOf(http2.connect('http://127.0.0.1:1')),
      // A URL object, as `http2.connect` also takes.
      url: kindOf(http2.connect(new URL(modelEndpoint))),
    }))
    await tape.finish()
    expect(inside).toEqual({
      owned: 'TapedHttp2Session',
      loopback: 'ClientHttp2Session',
      url: 'TapedHttp2Session',
    })
    expect(kindOf(http2.connect(modelEndpoint))).toBe('ClientHttp2Session')
  } finally {
    remove()
  }
})

it('calls the connect listener of a taped session', async () => {
  const remove = interceptHttp2(config())
  try {
    const tape = await recordingTape()
    const connected = await runWithTape(
      tape,
      () =>
        new Promise<string>((resolve) => {
          const session = http2.connect(`http://127.0.0.1:${port}`, () => {
            resolve(session.constructor.name)
            session.close()
          })
        }),
    )
    await tape.finish()
    expect(connected).toBe('TapedHttp2Session')
  } finally {
    remove()
  }
})
