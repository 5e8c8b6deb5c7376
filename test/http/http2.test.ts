import { AsyncResource } from 'node:async_hooks'
import http2, {
  type ClientHttp2Session,
  type IncomingHttpHeaders,
  type OutgoingHttpHeaders,
} from 'node:http2'
import type { LookupFunction } from 'node:net'
import { createMemoryStore, isAgentTapeError, parseCassette } from '@agent-tape/core'
import { type FakeProvider, startFakeProvider, type Turn } from '@agent-tape/fake-provider'
import { installHttpBoundary } from '@agent-tape/http'
import {
  AccessDeniedException,
  ConverseStreamCommand,
  ThrottlingException,
  ValidationException,
} from '@aws-sdk/client-bedrock-runtime'
import { afterAll, beforeAll, expect, it } from 'vitest'
import { http2BedrockClient, MODEL_ID, runConverseAgent } from '../support/bedrock-agent.js'
import type { CountingServer } from '../support/counting-server.js'
import { startH2cServer } from '../support/h2c-server.js'
import { researchScript } from '../support/scripts.js'
import { runTaped } from '../support/tape-run.js'

// The AWS SDK's default Bedrock client speaks HTTP/2 (NodeHttp2Handler): its sessions and streams
// are answered by the tape as a fetch is, and a replay opens no connection.

// A copy of connect taken before the setup ran, as a library might keep one: never answered.
const connectBeforeSetup = http2.connect
const boundary = installHttpBoundary()
const store = createMemoryStore()
const QUESTION = 'When was magnetic tape invented?'
let provider: FakeProvider
let api: CountingServer

// Runs a function in the module's own async context: outside every tape.
const outsideTapes = AsyncResource.bind((fn: () => void) => fn())

// api.example.test resolves to the loopback server: a host taped as other HTTP, neither loopback
// nor a model endpoint.
const lookup = ((_host: string, options: { all?: boolean }, done: (...args: unknown[]) => void) =>
  options.all
    ? done(null, [{ address: '127.0.0.1', family: 4 }])
    : done(null, '127.0.0.1', 4)) as unknown as LookupFunction

beforeAll(async () => {
  provider = await startFakeProvider({ reply: (req) => researchScript(req.body), seed: 'h2', http2: true })
  boundary.addModelEndpoints(provider.http2Url!)
  api = await startH2cServer((request, res) => {
    res.writeHead(request.path === '/missing' ? 404 : 201, {
      'content-type': 'application/json',
      'x-request-id': `req-${request.method}`,
      'set-cookie': ['session=abc', 'theme=dark'],
    })
    res.end(JSON.stringify(request))
  })
})
afterAll(async () => {
  await provider.close()
  await api.close()
})

/** A fake provider of its own, over h2c, for the turns a test scripts, closed after it. */
async function scripted<T>(reply: Turn[], run: (own: FakeProvider) => Promise<T>): Promise<T> {
  const own = await startFakeProvider({ reply, http2: true })
  const remove = boundary.addModelEndpoints(own.http2Url!)
  try {
    return await run(own)
  } finally {
    remove()
    await own.close()
  }
}

interface H2Answer {
  status: number
  headers: IncomingHttpHeaders
  body: string
}

/** One request on `session`, read to the end. */
function send(session: ClientHttp2Session, headers: OutgoingHttpHeaders, body?: string): Promise<H2Answer> {
  return new Promise((resolve, reject) => {
    const stream = session.request(headers)
    let head: IncomingHttpHeaders = {}
    let text = ''
    stream.on('response', (h) => {
      head = h
    })
    stream.setEncoding('utf8')
    stream.on('data', (chunk: string) => {
      text += chunk
    })
    stream.on('end', () => resolve({ status: Number(head[':status']), headers: { ...head }, body: text }))
    stream.on('error', reject)
    if (body !== undefined) stream.end(body)
  })
}

/** Opens a session to api.example.test, sends one POST and one GET on it, and closes it. */
async function callApi() {
  const session = http2.connect(`http://api.example.test:${api.port}`, { lookup })
  try {
    const created = await send(
      session,
      { ':method': 'POST', ':path': '/items?page=2', 'content-type': 'application/json' },
      '{"name":"tape"}',
    )
    const missing = await send(session, { ':path': '/missing' })
    return { created, missing }
  } finally {
    session.close()
  }
}

function errorShape(error: unknown) {
  const e = error as Error & { $fault?: string; $metadata?: { httpStatusCode?: number; requestId?: string } }
  return {
    class: e?.constructor,
    name: e?.name,
    message: e?.message,
    fault: e?.$fault,
    status: e?.$metadata?.httpStatusCode,
    requestId: e?.$metadata?.requestId,
  }
}

it('the default BedrockRuntimeClient records a Converse tool loop over HTTP/2 and replays it with zero connections', async () => {
  const client = http2BedrockClient(provider.http2Url!)
  const before = provider.connections
  const rec = await runTaped(store, 'converse.jsonl', 'auto', () => runConverseAgent(client, QUESTION))
  expect(rec.error).toBeUndefined()
  expect(rec.state).toMatchObject({ status: 'recorded', recorded: 3 })
  expect(rec.result?.text).toBe('Magnetic tape recording was invented in 1928.')
  // One isolated session per request, as the SDK opens them for Bedrock.
  expect(provider.connections).toBe(before + 3)
  const replay = await runTaped(store, 'converse.jsonl', 'replay', () => runConverseAgent(client, QUESTION))
  expect(provider.connections).toBe(before + 3)
  expect(replay.state).toMatchObject({ status: 'clean', replayed: 3 })
  expect(replay.result).toEqual(rec.result)
  expect(replay.result?.answers.map((a) => a.$metadata)).toEqual(rec.result?.answers.map((a) => a.$metadata))
  expect(replay.result?.answers[0]?.$metadata.requestId).toMatch(/^[0-9a-f-]{36}$/)
  const [first] = parseCassette(store.files['converse.jsonl']!, 'converse.jsonl').decisions
  expect(first).toMatchObject({
    kind: 'llm',
    in: { api: 'bedrock-converse', path: `/model/${encodeURIComponent(MODEL_ID)}/converse` },
  })
})

it('a prompt edit misses over HTTP/2 as it does over HTTP/1.1: a ValidationException carrying the report, no connection', async () => {
  const before = provider.connections
  const miss = await runTaped(store, 'converse.jsonl', 'replay', () =>
    runConverseAgent(http2BedrockClient(provider.http2Url!), 'When was tape invented?'),
  )
  expect(provider.connections).toBe(before)
  expect(miss.error).toBeInstanceOf(ValidationException)
  expect((miss.error as Error).message).toContain('Replay miss at step 1')
  expect(miss.failure?.message).toContain(
    'body.messages[0].content[0].text: "When was magnetic tape invented?" → "When was tape invented?"',
  )
})

it('an abort of a replayed ConverseStream mid-stream fails the caller as it did while recording', async () => {
  const run = (url: string) => async () => {
    const controller = new AbortController()
    const answer = await http2BedrockClient(url).send(
      new ConverseStreamCommand({
        modelId: MODEL_ID,
        messages: [{ role: 'user', content: [{ text: 'hi' }] }],
      }),
      { abortSignal: controller.signal },
    )
    const events: unknown[] = []
    try {
      for await (const event of answer.stream!) {
        events.push(event)
        if (events.length === 2) controller.abort()
      }
    } catch (error) {
      return { events: events.length, error: (error as Error).name }
    }
    return { events: events.length, error: undefined }
  }
  const turn: Turn = { text: 'one two three four five six', chunkDelayMs: 20 }
  const { recorded, replayed } = await scripted([turn], async (own) => ({
    recorded: await runTaped(store, 'h2-abort.jsonl', 'auto', run(own.http2Url!)),
    // Instant: the recorded abort waits for this caller's own.
    replayed: await runTaped(store, 'h2-abort.jsonl', 'replay', run(own.http2Url!)),
  }))
  expect(recorded.error).toBeUndefined()
  // The SDK closes the stream and destroys its session: the iteration ends early.
  expect(recorded.result).toEqual({ events: 2, error: 'Error' })
  expect(replayed.result).toEqual(recorded.result)
  expect(replayed.state.status).toBe('clean')
})

it('ConverseStream over HTTP/2: replays every streamed event and the $metadata, with zero connections', async () => {
  const run = (url: string) => async () => {
    const answer = await http2BedrockClient(url).send(
      new ConverseStreamCommand({
        modelId: MODEL_ID,
        messages: [{ role: 'user', content: [{ text: 'hi' }] }],
      }),
    )
    const events: unknown[] = []
    for await (const event of answer.stream!) events.push(event)
    return { metadata: answer.$metadata, events }
  }
  const turn: Turn = {
    text: 'Tape arrived in 1928.',
    toolCalls: [{ name: 'search', args: { query: 'tape' } }],
    usage: { inputTokens: 21, outputTokens: 8 },
  }
  const { recorded, replayed, connections } = await scripted([turn], async (own) => {
    const recorded = await runTaped(store, 'converse-stream.jsonl', 'auto', run(own.http2Url!))
    const afterRecording = own.connections
    const replayed = await runTaped(store, 'converse-stream.jsonl', 'replay', run(own.http2Url!))
    return { recorded, replayed, connections: [afterRecording, own.connections] }
  })
  expect(recorded.error).toBeUndefined()
  expect(replayed.state).toMatchObject({ status: 'clean', replayed: 1 })
  expect(replayed.result).toEqual(recorded.result)
  expect(connections).toEqual([1, 1])
  expect(recorded.result?.events[0]).toEqual({ messageStart: { role: 'assistant' } })
  expect(recorded.result?.events).toContainEqual({
    contentBlockStart: {
      contentBlockIndex: 1,
      start: { toolUse: expect.objectContaining({ name: 'search' }) },
    },
  })
  expect(recorded.result?.events.at(-1)).toMatchObject({
    metadata: { usage: { inputTokens: 21, outputTokens: 8 } },
  })
})

it.each([
  [403, AccessDeniedException],
  [429, ThrottlingException],
] as const)(
  'an HTTP %i over HTTP/2 replays as the same %o, with its message and request id',
  async (status, Class) => {
    const file = `h2-error-${status}.jsonl`
    const run = (own: FakeProvider) => () => runConverseAgent(http2BedrockClient(own.http2Url!), QUESTION)
    const { recorded, replayed } = await scripted(
      [{ error: { status, message: `refused (${status})` } }],
      async (own) => ({
        recorded: await runTaped(store, file, 'auto', run(own)),
        replayed: await runTaped(store, file, 'replay', run(own)),
      }),
    )
    expect(recorded.error).toBeInstanceOf(Class)
    expect(replayed.error).toBeInstanceOf(Class)
    expect(errorShape(replayed.error)).toEqual(errorShape(recorded.error))
    expect(errorShape(replayed.error)).toMatchObject({ message: `refused (${status})`, status })
    expect(replayed.state.status).toBe('clean')
  },
)

it('a raw http2 session to a taped origin records and replays status, headers and body, opening no connection in replay', async () => {
  const memory = createMemoryStore()
  const before = api.connections
  const live = await runTaped(memory, 'raw.jsonl', 'auto', callApi)
  expect(live.error).toBeUndefined()
  expect(live.state).toMatchObject({ status: 'recorded', recorded: 2 })
  expect(api.connections).toBe(before + 1)
  expect(live.result?.created).toMatchObject({
    status: 201,
    headers: { 'content-type': 'application/json', 'x-request-id': 'req-POST' },
  })
  expect(JSON.parse(live.result!.created.body)).toMatchObject({
    method: 'POST',
    path: '/items?page=2',
    body: '{"name":"tape"}',
  })
  // The caller reads every header live; the tape keeps those it stores (no cookies).
  expect(live.result?.created.headers['set-cookie']).toEqual(['session=abc', 'theme=dark'])
  const replay = await runTaped(memory, 'raw.jsonl', 'replay', callApi)
  expect(replay.state).toMatchObject({ status: 'clean', replayed: 2 })
  expect(api.connections).toBe(before + 1)
  for (const answer of ['created', 'missing'] as const) {
    expect(replay.result?.[answer].status).toBe(live.result?.[answer].status)
    expect(replay.result?.[answer].body).toBe(live.result?.[answer].body)
    expect(replay.result?.[answer].headers).toEqual({
      ':status': live.result?.[answer].status,
      'content-type': 'application/json',
      'x-request-id': live.result?.[answer].headers['x-request-id'],
      [http2.sensitiveHeaders]: [],
    })
  }
  const decisions = parseCassette(memory.files['raw.jsonl']!, 'raw.jsonl').decisions
  expect(decisions.map((d) => d.in)).toEqual([
    {
      method: 'POST',
      url: `http://api.example.test:${api.port}/items`,
      query: [['page', '2']],
      headers: { 'content-type': 'application/json' },
      body: { json: { name: 'tape' } },
    },
    { method: 'GET', url: `http://api.example.test:${api.port}/missing` },
  ])
})

it('a stream finds the tape of the code that called request(), whichever tape opened the session and whatever ends its body', async () => {
  const memory = createMemoryStore()
  let session: ClientHttp2Session | undefined
  const opened = await runTaped(memory, 'opener.jsonl', 'auto', async () => {
    session = http2.connect(`http://api.example.test:${api.port}`, { lookup })
  })
  expect(opened.state.recorded).toBe(0)
  const used = await runTaped(memory, 'user.jsonl', 'auto', () => {
    const answer = new Promise<H2Answer>((resolve, reject) => {
      const stream = session!.request({ ':method': 'POST', ':path': '/late' })
      let text = ''
      stream.on('data', (chunk: Buffer) => {
        text += chunk
      })
      stream.on('end', () => resolve({ status: 200, headers: {}, body: text }))
      stream.on('error', reject)
      // The body ends from code that runs outside every tape (a pipe from a stream made earlier).
      setTimeout(() => outsideTapes(() => stream.end('{"late":true}')), 5)
    })
    return answer
  })
  session!.close()
  expect(used.error).toBeUndefined()
  expect(session!.constructor.name).toBe('TapedHttp2Session')
  expect(JSON.parse(used.result!.body)).toMatchObject({ path: '/late', body: '{"late":true}' })
  expect(used.state.recorded).toBe(1)
  expect(parseCassette(memory.files['opener.jsonl']!, 'opener.jsonl').decisions).toEqual([])
})

it('a session opened before any tape and reused inside one is answered by the tape: its replay sends nothing', async () => {
  const memory = createMemoryStore()
  const session = http2.connect(`http://api.example.test:${api.port}`, { lookup })
  try {
    const outside = await send(session, { ':path': '/free' })
    expect(outside.status).toBe(201)
    const before = api.connections
    const live = await runTaped(memory, 'pooled.jsonl', 'auto', () => send(session, { ':path': '/pooled' }))
    expect(live.state).toMatchObject({ status: 'recorded', recorded: 1 })
    const replay = await runTaped(memory, 'pooled.jsonl', 'replay', () =>
      send(session, { ':path': '/pooled' }),
    )
    expect(replay.state).toMatchObject({ status: 'clean', replayed: 1 })
    expect(replay.result?.body).toBe(live.result?.body)
    // The session's one connection carried the recording; the replay opened none.
    expect(api.connections).toBe(before)
    const miss = await runTaped(
      memory,
      'pooled.jsonl',
      'replay',
      () => send(session, { ':path': '/other' }),
      {
        failOnUnused: false,
      },
    )
    expect(miss.failure?.message).toMatch(/^\[agent-tape\] Replay miss at step 0, .*GET .*\/other/)
  } finally {
    session.close()
  }
})

it('a connection no tape covers (opened outside every tape while one runs) is refused with ERR_TAPE_NETWORK; with no tape running it connects', async () => {
  const before = api.connections
  const refused = await runTaped(
    createMemoryStore(),
    'outside.jsonl',
    'auto',
    () =>
      new Promise<unknown>((resolve) =>
        outsideTapes(() => {
          const opened = http2.connect(`http://api.example.test:${api.port}`, { lookup })
          opened.on('error', resolve)
        }),
      ),
  )
  expect(api.connections).toBe(before)
  expect(isAgentTapeError(refused.result) && refused.result.code).toBe('ERR_TAPE_NETWORK')
  expect((refused.result as Error).message).toBe(
    `[agent-tape] Blocked a connection to api.example.test:${api.port} from node:http2: 1 tape is running and this connection was opened outside all of them; agent-tape answers a node:http2 session opened inside a tape's test, and cannot tell which tape this one belongs to, so the request would be missing from the cassette and fail when replayed. The connection was refused before it opened. Open the session from the test (or code it awaits) with http2.connect as node:http2 exports it, or, if api.example.test is a local service the test may reach for real (a database, a test server), add it to allowHosts.`,
  )
  const free = await callApi()
  expect(free.created.status).toBe(201)
  expect(api.connections).toBe(before + 1)
})

it('a session from a copy of http2.connect taken before the setup is refused inside a tape, saying so', async () => {
  const before = api.connections
  const run = await runTaped(createMemoryStore(), 'early.jsonl', 'auto', async () => {
    const session = connectBeforeSetup(`http://api.example.test:${api.port}`, { lookup })
    return new Promise<unknown>((resolve) => session.on('error', resolve))
  })
  expect(api.connections).toBe(before)
  expect(isAgentTapeError(run.failure) && run.failure.code).toBe('ERR_TAPE_NETWORK')
  expect(run.failure?.message).toContain(
    `from node:http2: tape "early.jsonl" is recording; agent-tape answers the sessions http2.connect opens once agent-tape's setup has run, and this one was opened through a copy of connect taken before it`,
  )
  expect(run.result).toBe(run.failure)
})

it('loopback that is not a model endpoint gets node:http2 untouched, inside a tape too', async () => {
  const before = api.connections
  const session = http2.connect(api.origin)
  session.on('error', () => {})
  expect(session.constructor.name).toBe('ClientHttp2Session')
  const run = await runTaped(createMemoryStore(), 'loopback.jsonl', 'auto', async () => {
    const inside = http2.connect(api.origin)
    try {
      return { constructor: inside.constructor.name, answer: await send(inside, { ':path': '/local' }) }
    } finally {
      inside.close()
    }
  })
  session.close()
  expect(run.state).toMatchObject({ status: 'recorded', recorded: 0 })
  expect(run.result?.constructor).toBe('ClientHttp2Session')
  expect(run.result?.answer.status).toBe(201)
  expect(api.connections).toBe(before + 2)
})
