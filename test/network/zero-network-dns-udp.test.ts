import dgram from 'node:dgram'
import dns, { lookup as namedLookup } from 'node:dns'
import * as dnsPromises from 'node:dns/promises'
import { createRequire } from 'node:module'
import { pathToFileURL } from 'node:url'
import { createMemoryStore, isAgentTapeError } from '@agent-tape/core'
import { installHttpBoundary } from '@agent-tape/http'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import {
  type CountingDnsServer,
  startCountingDnsServer,
  startCountingUdpServer,
} from '../support/dns-server.js'
import { runTaped } from '../support/tape-run.js'

// DNS queries and UDP datagrams, which no boundary records: refused while a tape records or
// replays, as connections are. A DNS server and a UDP listener on loopback count what reached
// them; the names asked for are not loopback names, whatever serves them.
const boundary = installHttpBoundary()
let server: CountingDnsServer
let udp: Awaited<ReturnType<typeof startCountingUdpServer>>
const NAME = 'api.example.test'

beforeAll(async () => {
  server = await startCountingDnsServer()
  udp = await startCountingUdpServer()
})
afterAll(async () => {
  await server.close()
  await udp.close()
})

const resolver = () => {
  const r = new dns.Resolver({ timeout: 2000, tries: 1 })
  r.setServers([server.server])
  return r
}
const promiseResolver = () => {
  const r = new dnsPromises.Resolver({ timeout: 2000, tries: 1 })
  r.setServers([server.server])
  return r
}
const callback =
  <T>(fn: (done: (error: Error | null, value?: T) => void) => void) =>
  () =>
    new Promise<T>((resolve, reject) => fn((error, value) => (error ? reject(error) : resolve(value as T))))

/** Queries that reach the counting server when let through. */
const RESOLVER_QUERIES: Record<string, [string, () => Promise<unknown>]> = {
  'a dns.Resolver query (resolve4)': [
    'a dns.Resolver (resolve4)',
    callback((done) => resolver().resolve4(NAME, done)),
  ],
  'a dns.Resolver query (resolve)': [
    'a dns.Resolver (resolve)',
    callback((done) => resolver().resolve(NAME, 'A', done)),
  ],
  'a dns.promises.Resolver query': [
    'a dns.promises.Resolver (resolve4)',
    () => promiseResolver().resolve4(NAME),
  ],
  'dns.resolve4 after dns.setServers': [
    'dns.resolve4',
    callback((done) => {
      dns.setServers([server.server])
      dns.resolve4(NAME, done)
    }),
  ],
}

/** Queries to the system's resolver (getaddrinfo, and the default servers): refused before it is asked. */
const LOOKUPS: Record<string, [string, () => Promise<unknown>]> = {
  'dns.lookup': ['dns.lookup', callback((done) => dns.lookup(NAME, done))],
  'dns.lookup imported by name': ['dns.lookup', callback((done) => namedLookup(NAME, { all: true }, done))],
  'dns.promises.lookup': ['dns.promises.lookup', () => dns.promises.lookup(NAME)],
  'node:dns/promises lookup': ['dns.promises.lookup', () => dnsPromises.lookup(NAME)],
  'dns.lookupService': ['dns.lookupService', callback((done) => dns.lookupService('192.0.2.7', 443, done))],
  'dns.promises.reverse': ['dns.promises.reverse', () => dnsPromises.reverse('192.0.2.7')],
  'dns.promises.resolveTxt': ['dns.promises.resolveTxt', () => dnsPromises.resolveTxt(NAME)],
}

function expectBlocked(
  run: Awaited<ReturnType<typeof runTaped>>,
  from: string,
  action: 'replaying' | 'recording',
) {
  expect(run.error).toBeDefined()
  expect(run.error).toBe(run.failure)
  expect(isAgentTapeError(run.failure) && run.failure.code).toBe('ERR_TAPE_NETWORK')
  expect(run.failure?.message).toMatch(/^\[agent-tape\] Blocked a (reverse )?DNS (lookup|query)/)
  expect(run.failure?.message).toContain(` from ${from}: tape "dns.jsonl" is ${action}`)
}

async function cassette() {
  const store = createMemoryStore()
  await runTaped(store, 'dns.jsonl', 'update', async () => {})
  return store
}

describe.each([
  ['replay', 'replaying'],
  ['update', 'recording'],
] as const)('in %s', (mode, action) => {
  it.each(Object.entries(RESOLVER_QUERIES))(
    '%s is refused, reaching no DNS server',
    async (_, [from, query]) => {
      const before = server.queries
      const run = await runTaped(await cassette(), 'dns.jsonl', mode, query)
      expectBlocked(run, from, action)
      expect(run.failure?.message).toContain(`DNS query (`)
      expect(server.queries).toBe(before)
    },
  )

  it.each(Object.entries(LOOKUPS))(
    '%s is refused before the system’s resolver is asked',
    async (_, [from, lookup]) => {
      const run = await runTaped(await cassette(), 'dns.jsonl', mode, lookup)
      expectBlocked(run, from, action)
    },
  )

  it('a UDP datagram to a name that is not loopback is refused, reaching nothing', async () => {
    const before = udp.datagrams
    const run = await runTaped(await cassette(), 'dns.jsonl', mode, () => sendTo('metrics.internal'))
    expect(isAgentTapeError(run.failure) && run.failure.code).toBe('ERR_TAPE_NETWORK')
    expect(run.error).toBe(run.failure)
    expect(run.failure?.message).toContain(
      `Blocked a UDP datagram to metrics.internal:${udp.port} from dgram (socket.send): tape "dns.jsonl" is ${action}`,
    )
    const connected = await runTaped(await cassette(), 'dns.jsonl', mode, () => connectTo('metrics.internal'))
    expect(connected.failure?.message).toContain(`from dgram (socket.connect): tape "dns.jsonl" is ${action}`)
    expect(udp.datagrams).toBe(before)
  })
})

/** A datagram to `host`, which this socket's own lookup sends to the loopback listener. */
function sendTo(host: string): Promise<number> {
  const socket = dgram.createSocket({ type: 'udp4', lookup: loopbackLookup })
  return new Promise<number>((resolve, reject) =>
    socket.send('ping', udp.port, host, (error, bytes) => {
      socket.close()
      if (error) reject(error)
      else resolve(bytes)
    }),
  )
}

function connectTo(host: string): Promise<void> {
  const socket = dgram.createSocket({ type: 'udp4', lookup: loopbackLookup })
  return new Promise<void>((resolve, reject) => {
    socket.once('error', (error) => {
      socket.close()
      reject(error)
    })
    // A failed connect passes its error to the callback, as dgram does.
    socket.connect(udp.port, host, ((error?: Error) => {
      if (error) {
        socket.close()
        reject(error)
        return
      }
      socket.send('ping', () => {
        socket.close()
        resolve()
      })
    }) as () => void)
  })
}

const loopbackLookup = ((_host: string, _options: unknown, done: (...args: unknown[]) => void) =>
  done(null, '127.0.0.1', 4)) as unknown as typeof dns.lookup

it('lets the same queries and datagrams through outside tapes and in live mode: the counts move', async () => {
  const queries = server.queries
  for (const [, query] of Object.values(RESOLVER_QUERIES)) expect(await query()).toEqual(['127.0.0.1'])
  const live = await runTaped(
    createMemoryStore(),
    'live.jsonl',
    'live',
    RESOLVER_QUERIES['a dns.Resolver query (resolve4)']![1],
  )
  expect(live.result).toEqual(['127.0.0.1'])
  expect(server.queries).toBe(queries + Object.keys(RESOLVER_QUERIES).length + 1)
  const datagrams = udp.datagrams
  await sendTo('metrics.internal')
  await connectTo('metrics.internal')
  await waitFor(() => udp.datagrams === datagrams + 2)
  // The system resolver is asked: whatever it answers, it is not agent-tape's refusal.
  const outside = await LOOKUPS['dns.lookup']![1]().catch((error: unknown) => error)
  expect(isAgentTapeError(outside)).toBe(false)
})

it('passes loopback names, addresses given to lookup, and hosts in allowHosts, in replay', async () => {
  const store = await cassette()
  const run = await runTaped(store, 'dns.jsonl', 'replay', async () => ({
    localhost: await dnsPromises.lookup('localhost'),
    address: await dnsPromises.lookup('192.0.2.7'),
    loopbackQuery: await promiseResolver()
      .resolve4('db.localhost')
      .catch((e: Error) => e.message),
    datagram: await new Promise<number>((resolve, reject) => {
      const socket = dgram.createSocket('udp4')
      socket.send('ping', udp.port, '127.0.0.1', (error, bytes) => {
        socket.close()
        if (error) reject(error)
        else resolve(bytes)
      })
    }),
  }))
  expect(run.error).toBeUndefined()
  expect(run.result?.address).toEqual({ address: '192.0.2.7', family: 4 })
  expect(run.result?.loopbackQuery).toEqual(['127.0.0.1'])
  const remove = boundary.addAllowedHosts(`${NAME}:5432`, 'metrics.internal')
  try {
    const before = server.queries
    const allowed = await runTaped(store, 'dns.jsonl', 'replay', async () => {
      await RESOLVER_QUERIES['a dns.Resolver query (resolve4)']![1]()
      return sendTo('metrics.internal')
    })
    expect(allowed).toMatchObject({ error: undefined, result: 4, state: { status: 'clean' } })
    expect(server.queries).toBe(before + 1)
  } finally {
    remove()
  }
})

it('names the package that asked, when a package did (a caching resolver, as got can use)', async () => {
  // cacheable-lookup, got's DNS cache, as a user's HTTP stack would load it.
  const fromGot = createRequire(createRequire(import.meta.url).resolve('got'))
  const { default: CacheableLookup } = (await import(
    pathToFileURL(fromGot.resolve('cacheable-lookup')).href
  )) as {
    default: new (options: { resolver: unknown }) => { lookupAsync(host: string): Promise<unknown> }
  }
  const cache = new CacheableLookup({ resolver: promiseResolver() })
  const before = server.queries
  const run = await runTaped(await cassette(), 'dns.jsonl', 'replay', () => cache.lookupAsync(NAME))
  expect(run.failure?.message).toMatch(
    new RegExp(
      `^\\[agent-tape\\] Blocked a DNS query \\(resolve[46]\\) for ${NAME.replace(/\./g, '\\.')} from a dns\\.promises\\.Resolver \\(resolve[46]\\), called by cacheable-lookup: `,
    ),
  )
  expect(server.queries).toBe(before)
})

async function waitFor(check: () => boolean): Promise<void> {
  for (let i = 0; i < 200 && !check(); i++) await new Promise((resolve) => setTimeout(resolve, 5))
  expect(check()).toBe(true)
}
