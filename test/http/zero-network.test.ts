import http from 'node:http'
import http2 from 'node:http2'
import https from 'node:https'
import net from 'node:net'
import tls from 'node:tls'
import { createMemoryStore, isAgentTapeError } from '@agent-tape/core'
import { installHttpBoundary } from '@agent-tape/http'
import axios from 'axios'
import got from 'got'
import * as undici from 'undici7'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type CountingServer, startCountingServer } from '../support/counting-server.js'
import { startH2cServer } from '../support/h2c-server.js'
import { runTaped } from '../support/tape-run.js'

const boundary = installHttpBoundary()
let recorded: CountingServer
let fresh: CountingServer
let freshH2c: CountingServer
const store = createMemoryStore()
const PATH = '/v1/data'

beforeAll(async () => {
  recorded = await startCountingServer('recorded')
  fresh = await startCountingServer('new')
  freshH2c = await startH2cServer(({ path }, res) => {
    res.writeHead(200, { 'content-type': 'application/json' })
    res.end(JSON.stringify({ server: 'new', path }))
  })
  boundary.addModelEndpoints(recorded.origin, fresh.origin, freshH2c.origin)
  const run = await runTaped(store, 'recorded.jsonl', 'auto', async () =>
    (await fetch(`${recorded.origin}${PATH}`)).json(),
  )
  expect(run.result).toEqual({ server: 'recorded', path: PATH })
  expect(recorded.connections).toBe(1)
})
afterAll(async () => {
  await recorded.close()
  await fresh.close()
  await freshH2c.close()
})

/** Reads a node:http(s) response to the end, or fails with the request's error. */
function nodeGet(client: typeof http | typeof https, url: string, agent?: http.Agent): Promise<string> {
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

function socketOutcome(socket: net.Socket): Promise<string> {
  return new Promise((resolve, reject) => {
    socket.on('connect', () => {
      socket.destroy()
      resolve('connected')
    })
    socket.on('error', reject)
  })
}

type Client = (origin: string, path: string) => Promise<unknown>

/** Clients agent-tape captures: their requests are recorded and replayed. */
const CAPTURED: Record<string, Client> = {
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
const OVER_HTTP2 = new Set(['node:http2'])

/** Clients agent-tape cannot answer for: refused at the socket while a tape records or replays. */
const REFUSED: Record<string, [string, Client]> = {
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

function servers() {
  return { recorded: recorded.connections, new: fresh.connections, h2c: freshH2c.connections }
}

describe('in replay', () => {
  it.each(Object.entries(CAPTURED))(
    '%s to the recorded host replays, opening no connection',
    async (_, client) => {
      const before = servers()
      const run = await runTaped(store, 'recorded.jsonl', 'replay', () => client(recorded.origin, PATH))
      expect(run.error).toBeUndefined()
      expect(run.result).toEqual({ server: 'recorded', path: PATH })
      expect(run.state.status).toBe('clean')
      expect(servers()).toEqual(before)
    },
  )

  it.each(Object.entries(CAPTURED))('%s to a new host misses, opening no connection', async (_, client) => {
    const before = servers()
    const run = await runTaped(store, 'recorded.jsonl', 'replay', () => client(fresh.origin, '/v1/other'), {
      failOnUnused: false,
    })
    expect(run.error).toBeDefined()
    expect(run.failure?.message).toMatch(/^\[agent-tape\] Replay miss at step 0, .*GET \/v1\/other/)
    expect(servers()).toEqual(before)
  })

  for (const [name, [path, client]] of Object.entries(REFUSED)) {
    for (const target of ['recorded', 'new'] as const) {
      it(`${name} to the ${target} host is refused before it connects, and fails the tape`, async () => {
        const server = target === 'recorded' ? recorded : fresh
        const before = servers()
        const run = await runTaped(store, 'recorded.jsonl', 'replay', () => client(server.origin, PATH), {
          failOnUnused: false,
        })
        expect(run.error).toBeDefined()
        expect(servers()).toEqual(before)
        expect(isAgentTapeError(run.failure) && run.failure.code).toBe('ERR_TAPE_NETWORK')
        expect(run.failure?.message).toContain(`Blocked a connection to 127.0.0.1:${server.port} from `)
        expect(run.failure?.message).toContain(path)
        expect(run.failure?.message).toContain(
          'tape "recorded.jsonl" is replaying, and a replay never reaches the network',
        )
      })
    }
  }
})

describe('while recording', () => {
  it.each(Object.entries(CAPTURED))('%s is recorded, and replays', async (name, client) => {
    const memory = createMemoryStore()
    const cassette = `${name}.jsonl`
    const origin = OVER_HTTP2.has(name) ? freshH2c.origin : fresh.origin
    const live = await runTaped(memory, cassette, 'auto', () => client(origin, '/v1/recorded'))
    expect(live.error).toBeUndefined()
    expect(live.state).toMatchObject({ status: 'recorded', captured: 1 })
    const before = servers()
    const replay = await runTaped(memory, cassette, 'replay', () => client(origin, '/v1/recorded'))
    expect(replay.result).toEqual(live.result)
    expect(replay.state.status).toBe('clean')
    expect(servers()).toEqual(before)
  })

  it.each(Object.entries(REFUSED))(
    '%s is refused loudly, never passed silently',
    async (_, [path, client]) => {
      const before = servers()
      const run = await runTaped(createMemoryStore(), 'refused.jsonl', 'auto', () =>
        client(fresh.origin, PATH),
      )
      expect(run.error).toBeDefined()
      expect(servers()).toEqual(before)
      expect(run.failure?.message).toContain(path)
      expect(run.failure?.message).toContain('is recording; ')
    },
  )

  it('lets a host in allowHosts through in every mode, and refuses it again once removed', async () => {
    const database = await startCountingServer('database')
    // db.internal resolves to the loopback server: a host that is neither loopback nor a model endpoint.
    const lookup = (_host: string, options: { all?: boolean }, done: (...args: unknown[]) => void) =>
      options.all ? done(null, [{ address: '127.0.0.1', family: 4 }]) : done(null, '127.0.0.1', 4)
    const query = async () => {
      const client = new undici.Client(`http://db.internal:${database.port}`, {
        connect: { lookup } as never,
      })
      try {
        return await (await client.request({ path: '/rows', method: 'GET' })).body.json()
      } finally {
        await client.close()
      }
    }
    const memory = createMemoryStore()
    try {
      const refused = await runTaped(memory, 'allowed.jsonl', 'auto', query)
      expect(refused.failure?.message).toContain(`Blocked a connection to db.internal:${database.port}`)
      expect(refused.failure?.message).toContain('add it to allowHosts')
      const remove = boundary.addAllowedHosts('db.internal')
      const recording = await runTaped(memory, 'allowed.jsonl', 'update', query)
      expect(recording).toMatchObject({
        result: { server: 'database', path: '/rows' },
        state: { captured: 0 },
      })
      const replay = await runTaped(memory, 'allowed.jsonl', 'replay', query)
      expect(replay).toMatchObject({
        result: { server: 'database', path: '/rows' },
        state: { status: 'clean' },
      })
      expect(database.connections).toBe(2)
      remove()
      const again = await runTaped(memory, 'allowed.jsonl', 'replay', query)
      expect(again.failure?.message).toContain(`Blocked a connection to db.internal:${database.port}`)
      expect(database.connections).toBe(2)
    } finally {
      await database.close()
    }
  })
})

it('outside any tape, every client connects as usual', async () => {
  const before = fresh.connections
  await new undici.Client(fresh.origin).request({ path: '/free', method: 'GET' }).then((r) => r.body.text())
  expect(fresh.connections).toBe(before + 1)
})
