import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { gzipSync } from 'node:zlib'
import { createMemoryStore, openTape, type Tape } from '@agent-tape/core'
import { describe, expect, it, onTestFinished } from 'vitest'
import type { RequestOutcome } from './handle-request.js'
import { handleMcpRequest, jsonRpcOutcome, type McpHttpRequest, readMcpRequest } from './mcp-http.js'

const SERVER = 'http://127.0.0.1:41414/mcp'
const VERSION = { 'mcp-protocol-version': '2025-06-18' }

function rpc(message: unknown, headers: Record<string, string> = VERSION, href = SERVER): Request {
  return new Request(href, {
    method: 'POST',
    body: JSON.stringify(message),
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      ...headers,
    },
  })
}

const read = (request: Request) => readMcpRequest(request, new URL(request.url))

const call = (id: number | string, city: string) => ({
  jsonrpc: '2.0',
  id,
  method: 'tools/call',
  params: { name: 'get_weather', arguments: { city } },
})

describe('readMcpRequest', () => {
  it('reads a JSON-RPC request as the decision input: server, method and params, without the id', async () => {
    expect(await read(rpc(call(7, 'Paris')))).toEqual({
      type: 'request',
      id: 7,
      input: {
        server: 'loopback/mcp',
        method: 'tools/call',
        params: { name: 'get_weather', arguments: { city: 'Paris' } },
      },
    })
    // id 0 and string ids are ids.
    expect(await read(rpc(call(0, 'Paris')))).toMatchObject({ type: 'request', id: 0 })
    expect(await read(rpc(call('a-1', 'Paris')))).toMatchObject({ type: 'request', id: 'a-1' })
    expect(await read(rpc({ jsonrpc: '2.0', id: 1, method: 'tools/list' }))).toEqual({
      type: 'request',
      id: 1,
      input: { server: 'loopback/mcp', method: 'tools/list' },
    })
  })

  it('leaves out the _meta of params (progress tokens change every run)', async () => {
    const request = rpc({
      jsonrpc: '2.0',
      id: 3,
      method: 'tools/call',
      params: { _meta: { progressToken: 3 }, name: 'get_weather', arguments: { city: 'Paris' } },
    })
    expect(await read(request)).toEqual({
      type: 'request',
      id: 3,
      input: {
        server: 'loopback/mcp',
        method: 'tools/call',
        params: { name: 'get_weather', arguments: { city: 'Paris' } },
      },
    })
  })

  it('names a loopback server without its port, and any other by host and port', async () => {
    const server = async (href: string) => {
      const result = await read(rpc(call(1, 'Paris'), VERSION, href))
      return result?.type === 'request' ? result.input.server : undefined
    }
    expect(await server('http://localhost:3000/mcp')).toBe('loopback/mcp')
    expect(await server('http://[::1]:3000/v1/mcp/')).toBe('loopback/v1/mcp/')
    expect(await server('https://mcp.example.com/mcp')).toBe('mcp.example.com/mcp')
    expect(await server('https://mcp.example.com:8443/mcp?tenant=a')).toBe('mcp.example.com:8443/mcp')
  })

  it('takes the initialize request without the version header, and nothing else without it', async () => {
    const initialize = {
      jsonrpc: '2.0',
      id: 0,
      method: 'initialize',
      params: { protocolVersion: '2025-06-18' },
    }
    expect(await read(rpc(initialize, {}))).toMatchObject({
      type: 'request',
      input: { method: 'initialize' },
    })
    expect(await read(rpc(call(1, 'Paris'), {}))).toBeUndefined()
    expect(await read(new Request(SERVER))).toBeUndefined()
    expect(await read(new Request(SERVER, { method: 'DELETE' }))).toBeUndefined()
  })

  it('tells notifications, the listen stream and the end of a session', async () => {
    expect(await read(rpc({ jsonrpc: '2.0', method: 'notifications/initialized' }))).toEqual({
      type: 'notification',
    })
    expect(await read(new Request(SERVER, { headers: VERSION }))).toEqual({ type: 'listen' })
    expect(await read(new Request(SERVER, { method: 'DELETE', headers: VERSION }))).toEqual({ type: 'end' })
  })

  it('takes no batch, no other JSON-RPC version, no response and no body that is not JSON for MCP', async () => {
    expect(await read(rpc([call(1, 'Paris'), call(2, 'Lyon')]))).toBeUndefined()
    expect(await read(rpc({ ...call(1, 'Paris'), jsonrpc: '1.0' }))).toBeUndefined()
    expect(await read(rpc({ jsonrpc: '2.0', id: 1, result: {} }))).toBeUndefined()
    expect(await read(rpc('tools/call'))).toBeUndefined()
    expect(await read(rpc(null))).toBeUndefined()
    const text = new Request(SERVER, {
      method: 'POST',
      body: JSON.stringify(call(1, 'Paris')),
      headers: VERSION,
    })
    expect(text.headers.get('content-type')).toMatch(/^text\/plain/)
    expect(await read(text)).toBeUndefined()
    const broken = new Request(SERVER, {
      method: 'POST',
      body: '{"jsonrpc":"2.0",',
      headers: { 'content-type': 'application/json', ...VERSION },
    })
    expect(await read(broken)).toBeUndefined()
  })

  it('reads a copy of the body, so the request can still be sent', async () => {
    const request = rpc(call(1, 'Paris'))
    await read(request)
    expect(request.bodyUsed).toBe(false)
    expect(await request.json()).toEqual(call(1, 'Paris'))
  })
})

/** An MCP server in a function: answers tools/call with the weather, in JSON or as an event stream. */
function weatherServer(options: { tempC?: number; stream?: boolean } = {}) {
  const seen: string[] = []
  const perform = async (request: Request): Promise<Response> => {
    const message =
      request.method === 'POST'
        ? ((await request.json()) as {
            id?: number | string
            method?: string
            params: { arguments: { city: string } }
          })
        : undefined
    seen.push(`${request.method} ${message?.method ?? ''}`.trim())
    if (message?.id === undefined) return new Response(null, { status: 202 })
    const { city } = message.params.arguments
    const answer = {
      jsonrpc: '2.0',
      id: message.id,
      result: { content: [{ type: 'text', text: JSON.stringify({ city, tempC: options.tempC ?? 18 }) }] },
    }
    const headers = { 'mcp-session-id': 'session-1' }
    if (!options.stream) return Response.json(answer, { headers })
    const events = `event: message\ndata: ${JSON.stringify(answer)}\n\n`
    return new Response(events, { headers: { ...headers, 'content-type': 'text/event-stream' } })
  }
  return { perform, seen }
}

async function openMcpTape(store: ReturnType<typeof createMemoryStore>, mode: string): Promise<Tape> {
  return openTape({ id: 'mcp.test.ts > weather', cassettePath: 'weather.jsonl', store, mode, env: {} })
}

async function handle(request: Request, tape: Tape, perform: (r: Request) => Promise<Response>) {
  const mcp = (await readMcpRequest(request, new URL(request.url))) as McpHttpRequest
  return handleMcpRequest(request, mcp, tape, 'instant', perform)
}

async function responseOf(
  outcome: RequestOutcome,
): Promise<{ status: number; headers: Headers; text: string }> {
  if (outcome.type !== 'respond') throw new Error(`expected a response, got ${JSON.stringify(outcome)}`)
  const { status, headers } = outcome.response
  return { status, headers, text: await outcome.response.text() }
}

/** Records one tools/call for Paris, and returns the store holding the cassette. */
async function recordParis(options: { stream?: boolean } = {}) {
  const store = createMemoryStore()
  const tape = await openMcpTape(store, 'update')
  const server = weatherServer(options)
  await responseOf(await handle(rpc(call(7, 'Paris')), tape, server.perform))
  expect((await tape.finish()).recorded).toBe(1)
  return store
}

describe('handleMcpRequest', () => {
  it('records a request as an mcp decision keyed by server, method and params, and passes the response on', async () => {
    const store = createMemoryStore()
    const tape = await openMcpTape(store, 'update')
    const server = weatherServer()
    const live = await responseOf(await handle(rpc(call(7, 'Paris')), tape, server.perform))
    expect(live.status).toBe(200)
    expect(JSON.parse(live.text)).toMatchObject({ id: 7, result: { content: [{ type: 'text' }] } })
    await tape.finish()
    const cassette = (await store.read('weather.jsonl'))!
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line))
    expect(cassette).toHaveLength(2)
    expect(cassette[1]).toMatchObject({
      kind: 'mcp',
      in: { server: 'loopback/mcp', method: 'tools/call', params: { arguments: { city: 'Paris' } } },
      out: { status: 200, headers: { 'mcp-session-id': 'session-1', 'content-type': 'application/json' } },
    })
    expect(server.seen).toEqual(['POST tools/call'])
  })

  it('replays the recorded response under the id of the request, with no server', async () => {
    const store = await recordParis()
    const tape = await openMcpTape(store, 'replay')
    const server = weatherServer()
    const replayed = await responseOf(await handle(rpc(call(42, 'Paris')), tape, server.perform))
    expect(replayed.status).toBe(200)
    expect(replayed.headers.get('mcp-session-id')).toBe('session-1')
    expect(JSON.parse(replayed.text)).toEqual({
      jsonrpc: '2.0',
      id: 42,
      result: { content: [{ type: 'text', text: '{"city":"Paris","tempC":18}' }] },
    })
    expect(server.seen).toEqual([])
    expect((await tape.finish()).status).toBe('clean')
  })

  it('replays a streamed answer under the id of the request too', async () => {
    const store = await recordParis({ stream: true })
    const tape = await openMcpTape(store, 'replay')
    const replayed = await responseOf(
      await handle(rpc(call('req-9', 'Paris')), tape, weatherServer().perform),
    )
    expect(replayed.headers.get('content-type')).toBe('text/event-stream')
    expect(replayed.text).toMatch(/^event: message\ndata: /)
    const data = JSON.parse(replayed.text.split('\n')[1]!.slice('data: '.length))
    expect(data).toMatchObject({
      id: 'req-9',
      result: { content: [{ text: '{"city":"Paris","tempC":18}' }] },
    })
  })

  it('answers a request the cassette does not hold with a JSON-RPC error the client throws', async () => {
    const store = await recordParis()
    const tape = await openMcpTape(store, 'replay')
    const missed = await responseOf(await handle(rpc(call(5, 'Lyon')), tape, weatherServer().perform))
    expect(missed.status).toBe(200)
    const body = JSON.parse(missed.text)
    expect(body).toMatchObject({ jsonrpc: '2.0', id: 5, error: { code: -32603 } })
    expect(body.error.message).toMatch(/^\[agent-tape\] /)
    expect(body.error.message).toContain('Lyon')
  })

  it('answers the listen stream 405, and in replay notifications 202 and the end of a session 200, with no decision', async () => {
    const store = await recordParis()
    const tape = await openMcpTape(store, 'replay')
    const server = weatherServer()
    const listen = await handle(new Request(SERVER, { headers: VERSION }), tape, server.perform)
    expect((await responseOf(listen)).status).toBe(405)
    const notification = await handle(
      rpc({ jsonrpc: '2.0', method: 'notifications/initialized' }),
      tape,
      server.perform,
    )
    expect((await responseOf(notification)).status).toBe(202)
    const end = await handle(
      new Request(SERVER, { method: 'DELETE', headers: VERSION }),
      tape,
      server.perform,
    )
    expect((await responseOf(end)).status).toBe(200)
    expect(server.seen).toEqual([])
    await responseOf(await handle(rpc(call(1, 'Paris')), tape, server.perform))
    expect((await tape.finish()).replayed).toBe(1)
  })

  it('sends notifications to the server while recording, without a decision', async () => {
    const store = createMemoryStore()
    const tape = await openMcpTape(store, 'update')
    const server = weatherServer()
    const sent = await handle(
      rpc({ jsonrpc: '2.0', method: 'notifications/initialized' }),
      tape,
      server.perform,
    )
    expect((await responseOf(sent)).status).toBe(202)
    expect(server.seen).toEqual(['POST notifications/initialized'])
    expect((await tape.finish()).recorded).toBe(0)
  })

  it('fails a request in replay the way it failed while recording', async () => {
    const store = createMemoryStore()
    const recording = await openMcpTape(store, 'update')
    const unreachable = async (): Promise<Response> => {
      throw Object.assign(new TypeError('fetch failed'), { code: 'ECONNREFUSED' })
    }
    const failed = await handle(rpc(call(1, 'Paris')), recording, unreachable)
    expect(failed).toMatchObject({ type: 'error', error: { name: 'TypeError', message: 'fetch failed' } })
    await recording.finish()
    const replay = await openMcpTape(store, 'replay')
    const replayed = await handle(rpc(call(2, 'Paris')), replay, weatherServer().perform)
    expect(replayed).toMatchObject({
      type: 'error',
      error: { name: 'TypeError', message: 'fetch failed', code: 'ECONNREFUSED' },
    })
  })

  it('reports a decision whose output is not a response as a damaged cassette', async () => {
    const store = await recordParis()
    const text = (await store.read('weather.jsonl'))!
    const lines = text.trim().split('\n')
    const decision = JSON.parse(lines[1]!)
    decision.out = { content: 'not a response' }
    await store.write('weather.jsonl', `${lines[0]}\n${JSON.stringify(decision)}\n`)
    const tape = await openMcpTape(store, 'replay')
    const outcome = await handle(rpc(call(1, 'Paris')), tape, weatherServer().perform)
    expect(outcome).toMatchObject({ type: 'error', error: { code: 'ERR_TAPE_CORRUPT' } })
    expect(outcome.type === 'error' && outcome.error.message).toBe(
      '[agent-tape] Decision #1 of weather.jsonl is not a recorded MCP response: its output lacks the status and headers a response has. Restore the cassette from version control, or re-record the test.',
    )
  })

  it('in live-tools mode, calls the server and answers with the recording; a changed result is drift', async () => {
    const store = await recordParis()
    const same = await openMcpTape(store, 'live-tools')
    const server = weatherServer()
    const answer = await responseOf(await handle(rpc(call(3, 'Paris')), same, server.perform))
    expect(JSON.parse(answer.text)).toMatchObject({
      id: 3,
      result: { content: [{ text: '{"city":"Paris","tempC":18}' }] },
    })
    expect(server.seen).toEqual(['POST tools/call'])
    expect((await same.finish()).drifted).toEqual([])
    const changed = await openMcpTape(store, 'live-tools')
    const warmer = weatherServer({ tempC: 25 })
    const recorded = await responseOf(await handle(rpc(call(4, 'Paris')), changed, warmer.perform))
    // The client goes on with the recorded answer; the drift fails the test at the end.
    expect(JSON.parse(recorded.text).result.content[0].text).toBe('{"city":"Paris","tempC":18}')
    const state = await changed.finish()
    expect(state.drifted).toHaveLength(1)
    expect(state.status).toBe('diverged')
  })

  it('passes on a live response that the server compressed as the client can read it: decoded, without content-encoding', async () => {
    // An MCP server behind compression middleware, on loopback: it gzips every JSON answer.
    const server = createServer((request, response) => {
      let body = ''
      request.on('data', (chunk) => {
        body += chunk
      })
      request.on('end', () => {
        const { id } = JSON.parse(body)
        const answer = gzipSync(
          JSON.stringify({ jsonrpc: '2.0', id, result: { tools: [{ name: 'get_weather' }] } }),
        )
        response.writeHead(200, { 'content-type': 'application/json', 'content-encoding': 'gzip' })
        response.end(answer)
      })
    })
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
    onTestFinished(() => new Promise<void>((resolve) => server.close(() => resolve())))
    const href = `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`
    const list = (id: number) => rpc({ jsonrpc: '2.0', id, method: 'tools/list' }, VERSION, href)
    const perform = (request: Request) => fetch(request)
    const readable = async (outcome: RequestOutcome) => {
      if (outcome.type !== 'respond') throw new Error(`expected a response, got ${outcome.type}`)
      // fetch decoded the body: a client told it is gzip would decode it again, and fail.
      expect(outcome.response.headers.get('content-encoding')).toBeNull()
      expect(await outcome.response.json()).toMatchObject({ result: { tools: [{ name: 'get_weather' }] } })
    }
    const store = createMemoryStore()
    const recording = await openMcpTape(store, 'update')
    await readable(await handle(list(1), recording, perform))
    await recording.finish()
    const live = await openMcpTape(store, 'live-tools')
    await readable(await handle(list(2), live, perform))
    expect((await live.finish()).status).toBe('clean')
  })
})

describe('jsonRpcOutcome', () => {
  const response = (body: unknown) =>
    ({ status: 200, headers: {}, body }) as Parameters<typeof jsonRpcOutcome>[0]

  it('finds the result or error of a JSON body or of the first answering event', () => {
    expect(jsonRpcOutcome(response({ json: { jsonrpc: '2.0', id: 1, result: { ok: true } } }))).toEqual({
      result: { ok: true },
    })
    expect(
      jsonRpcOutcome(response({ json: { jsonrpc: '2.0', id: 1, error: { code: -1, message: 'no' } } })),
    ).toEqual({ error: { code: -1, message: 'no' } })
    const sse = {
      sse: [
        { t: 1, json: { jsonrpc: '2.0', method: 'notifications/progress', params: { progress: 1 } } },
        { t: 2, data: 'not json' },
        { t: 3, json: { jsonrpc: '2.0', id: 1, result: 'done' } },
      ],
    }
    expect(jsonRpcOutcome(response(sse))).toEqual({ result: 'done' })
    // A result that is null is a result.
    expect(jsonRpcOutcome(response({ json: { jsonrpc: '2.0', id: 1, result: null } }))).toEqual({
      result: null,
    })
  })

  it('finds nothing in a response without an answer', () => {
    expect(jsonRpcOutcome(response(undefined))).toEqual({})
    expect(jsonRpcOutcome(response({ text: 'Accepted' }))).toEqual({})
    expect(jsonRpcOutcome(response({ json: { jsonrpc: '2.0', method: 'ping', id: 1 } }))).toEqual({})
    expect(jsonRpcOutcome(response({ sse: [] }))).toEqual({})
  })
})
