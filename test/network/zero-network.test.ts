import { createMemoryStore, isAgentTapeError } from '@agent-tape/core'
import { installHttpBoundary } from '@agent-tape/http'
import * as undici from 'undici7'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type CountingServer, startCountingServer } from '../support/counting-server.js'
import { startH2cServer } from '../support/h2c-server.js'
import { CAPTURED, OVER_HTTP2, REFUSED } from '../support/network-clients.js'
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
    expect(live.state).toMatchObject({ status: 'recorded', recorded: 1 })
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
        state: { recorded: 0 },
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
