import http from 'node:http'
import { createMemoryStore, isAgentTapeError } from '@agent-tape/core'
import { installHttpBoundary } from '@agent-tape/http'
import { installedBoundary } from '@agent-tape/http/internal'
import OpenAI from 'openai'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type CountingServer, startCountingServer } from '../support/counting-server.js'
import { startH2cServer } from '../support/h2c-server.js'
import { CAPTURED, type Client, OVER_HTTP2, REFUSED } from '../support/network-clients.js'
import { runTaped } from '../support/tape-run.js'

// The zero-network matrix on the path a test file without a tape before it takes: the boundary
// is installed as a runner's setup installs it (stand-ins), the clients keep what they find
// before any tape opens (an SDK client built at import keeps `fetch`), requests pass before the
// first tape, and the first tape of the process loads what serves tapes. Each test file runs in
// a fresh process, so no tape of another file has loaded it.
const boundary = installHttpBoundary()

// What modules imported after the setup and before the first tape keep.
const keptFetch = globalThis.fetch
const { get: keptGet } = http
const KeptClientRequest = http.ClientRequest
const readBody = (
  res: http.IncomingMessage,
  resolve: (value: unknown) => void,
  reject: (e: Error) => void,
) => {
  let text = ''
  res.on('data', (chunk) => {
    text += chunk
  })
  res.on('end', () => resolve(JSON.parse(text)))
  res.on('error', reject)
}
let openai: OpenAI | undefined
const KEPT: Record<string, Client> = {
  'fetch kept before the first tape': async (o, p) => (await keptFetch(`${o}${p}`)).json(),
  'http.get destructured before the first tape': (o, p) =>
    new Promise((resolve, reject) => {
      keptGet(`${o}${p}`, (res) => readBody(res, resolve, reject)).on('error', reject)
    }),
  'http.ClientRequest kept before the first tape': (o, p) =>
    new Promise((resolve, reject) => {
      const request = new KeptClientRequest(`${o}${p}`, (res) => readBody(res, resolve, reject))
      request.on('error', reject)
      request.end()
    }),
  // Built at the first call, before the first tape: it keeps the `fetch` it finds then.
  'an OpenAI client built before the first tape': (o, p) => {
    openai ??= new OpenAI({ apiKey: 'sk-test', baseURL: o, maxRetries: 0 })
    return openai.get(p)
  },
}
const ALL = { ...CAPTURED, ...KEPT }

// What is loaded and applied: the boundary behind the stand-ins, the interceptor of node:http, and
// that of fetch (the boundary answers fetch itself: never applied).
const applied = () => ({
  boundary: installedBoundary()?.loaded() === true,
  nodeHttpInterceptor: Symbol.for('client-request-interceptor') in globalThis,
  fetchInterceptor: Symbol.for('fetch-interceptor') in globalThis,
})
const NOTHING = { boundary: false, nodeHttpInterceptor: false, fetchInterceptor: false }

let recorded: CountingServer
let h2c: CountingServer
const store = createMemoryStore()
const origin = (name: string) => (OVER_HTTP2.has(name) ? h2c.origin : recorded.origin)
const pathOf = (name: string) => `/v1/${encodeURIComponent(name)}`

beforeAll(async () => {
  recorded = await startCountingServer('recorded')
  h2c = await startH2cServer(({ path }, res) => {
    res.writeHead(200, { 'content-type': 'application/json' })
    res.end(JSON.stringify({ server: 'h2c', path }))
  })
  boundary.addModelEndpoints(recorded.origin, h2c.origin)
})
afterAll(async () => {
  await recorded.close()
  await h2c.close()
})

function connections() {
  return recorded.connections + h2c.connections
}

function requests() {
  return recorded.requests + h2c.requests
}

describe('before the first tape', () => {
  it.each(Object.entries(ALL))(
    '%s reaches its server untouched, with nothing loaded',
    async (name, client) => {
      const before = requests()
      const answer = await client(origin(name), '/v1/before')
      expect(answer).toEqual({ server: OVER_HTTP2.has(name) ? 'h2c' : 'recorded', path: '/v1/before' })
      expect(requests()).toBe(before + 1)
      expect(applied()).toEqual(NOTHING)
    },
  )
})

describe('the first tape', () => {
  it('loads what serves tapes, and records every client, those kept before it included', async () => {
    const run = await runTaped(store, 'first.jsonl', 'auto', async () => {
      const answers: Record<string, unknown> = {}
      for (const [name, client] of Object.entries(ALL))
        answers[name] = await client(origin(name), pathOf(name))
      return answers
    })
    expect(run.error).toBeUndefined()
    // Its node:http clients applied the interceptor of node:http.
    expect(applied()).toEqual({ boundary: true, nodeHttpInterceptor: true, fetchInterceptor: false })
    expect(run.state).toMatchObject({ status: 'recorded', recorded: Object.keys(ALL).length })
    for (const name of Object.keys(ALL)) {
      expect(run.result?.[name]).toEqual({
        server: OVER_HTTP2.has(name) ? 'h2c' : 'recorded',
        path: pathOf(name),
      })
    }
  })

  it.each(Object.entries(ALL))('%s then replays, opening no connection', async (name, client) => {
    const before = { connections: connections(), requests: requests() }
    const run = await runTaped(store, 'first.jsonl', 'replay', () => client(origin(name), pathOf(name)), {
      failOnUnused: false,
    })
    expect(run.error).toBeUndefined()
    expect(run.result).toEqual({ server: OVER_HTTP2.has(name) ? 'h2c' : 'recorded', path: pathOf(name) })
    expect({ connections: connections(), requests: requests() }).toEqual(before)
  })

  it.each(Object.entries(REFUSED))(
    '%s is refused before it connects, and fails the tape',
    async (_, [path, client]) => {
      const before = connections()
      const run = await runTaped(store, 'first.jsonl', 'replay', () => client(recorded.origin, '/v1/data'), {
        failOnUnused: false,
      })
      expect(run.error).toBeDefined()
      expect(connections()).toBe(before)
      expect(isAgentTapeError(run.failure) && run.failure.code).toBe('ERR_TAPE_NETWORK')
      expect(run.failure?.message).toContain(path)
    },
  )

  it('leaves every client as it found it once disposed', async () => {
    await boundary.dispose()
    expect(applied()).toEqual(NOTHING)
    expect(globalThis.fetch).not.toBe(keptFetch)
    const before = recorded.requests
    // Outside every tape, disposed: sent for real by the function kept before the first tape too.
    expect(await KEPT['fetch kept before the first tape']?.(recorded.origin, '/v1/after')).toEqual({
      server: 'recorded',
      path: '/v1/after',
    })
    expect(recorded.requests).toBe(before + 1)
  })
})
