import http from 'node:http'
import { createMemoryStore } from '@agent-tape/core'
import { type FakeProvider, startFakeProvider } from '@agent-tape/fake-provider'
import { installHttpBoundary } from '@agent-tape/http'
import OpenAI from 'openai'
import { afterAll, beforeAll, expect, it } from 'vitest'
import { runTaped } from '../support/tape-run.js'

const boundary = installHttpBoundary()
const store = createMemoryStore()
let provider: FakeProvider
let client: OpenAI
const DELAY = 40

beforeAll(async () => {
  provider = await startFakeProvider({
    reply: () => ({ text: ['a ', 'b ', 'c ', 'd ', 'e'] }),
    chunkDelayMs: DELAY,
  })
  boundary.addModelEndpoints(provider.url)
  client = new OpenAI({ apiKey: 'sk-test-dummy', baseURL: provider.openaiBaseURL })
})
afterAll(() => provider.close())

/** Streams an answer and notes when each delta arrived, relative to the request. */
async function timedStream() {
  const started = performance.now()
  const stream = await client.chat.completions.create({
    model: 'gpt-4o',
    messages: [{ role: 'user', content: 'letters' }],
    stream: true,
  })
  const arrivals: { text: string; at: number }[] = []
  for await (const chunk of stream) {
    const text = chunk.choices[0]?.delta.content
    if (text) arrivals.push({ text, at: performance.now() - started })
  }
  return arrivals
}

it('while recording, the caller streams live: the first delta arrives long before the last', async () => {
  const rec = await runTaped(store, 'timed.jsonl', 'auto', timedStream)
  const arrivals = rec.result!
  expect(arrivals.map((a) => a.text).join('')).toBe('a b c d e')
  // Six or more events, DELAY ms apart: a caller that waited for the whole body would see every
  // delta at the same moment.
  expect(arrivals.at(-1)!.at - arrivals[0]!.at).toBeGreaterThan(3 * DELAY)
})

it('replays instantly by default, with recorded pacing on request, and faster with a speed factor', async () => {
  const instant = await runTaped(store, 'timed.jsonl', 'replay', timedStream)
  const spread = (r: typeof instant) => r.result!.at(-1)!.at - r.result![0]!.at
  expect(instant.result!.map((a) => a.text).join('')).toBe('a b c d e')
  expect(spread(instant)).toBeLessThan(2 * DELAY)
  installHttpBoundary({ timing: 'recorded' })
  const paced = await runTaped(store, 'timed.jsonl', 'replay', timedStream)
  installHttpBoundary({ timing: { speed: 4 } })
  const faster = await runTaped(store, 'timed.jsonl', 'replay', timedStream)
  installHttpBoundary({ timing: 'instant' })
  expect(spread(paced)).toBeGreaterThan(3 * DELAY)
  expect(spread(faster)).toBeLessThan(spread(paced))
  expect(paced.state.status).toBe('clean')
})

it('records and replays requests made through node:http', async () => {
  const get = () =>
    new Promise<{ status: number; body: string }>((resolve, reject) => {
      // Called through the module object at call time, as HTTP clients do: the interceptor
      // patches `http.request` there.
      const req = http.request(`${provider.url}/v1/models`, (res) => {
        let body = ''
        res.setEncoding('utf8')
        res.on('data', (chunk: string) => (body += chunk))
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body }))
      })
      req.on('error', reject)
      req.end()
    })
  const rec = await runTaped(store, 'node-http.jsonl', 'auto', get)
  expect(rec.state.recorded).toBe(1)
  const connections = provider.connections
  const replay = await runTaped(store, 'node-http.jsonl', 'replay', get)
  expect(provider.connections).toBe(connections)
  expect(replay.result).toEqual(rec.result)
  expect(replay.state).toMatchObject({ status: 'clean', replayed: 1 })
})

it('rejects an invalid timing option with the valid ones', () => {
  expect(() => installHttpBoundary({ timing: { speed: 0 } })).toThrow(
    '[agent-tape] Invalid replay timing {"speed":0}: timing is "instant", "recorded", or { speed: n } with n > 0. Use one of them, e.g. { speed: 10 } to replay streams ten times faster than recorded.',
  )
})

it("with recorded timing, replays the time to the headers too, and keeps each event's time after them", async () => {
  const HEADERS = 150
  const slow = await startFakeProvider({
    reply: () => ({ text: ['x ', 'y'], headersDelayMs: HEADERS, chunkDelayMs: 10 }),
  })
  boundary.addModelEndpoints(slow.url)
  const slowClient = new OpenAI({ apiKey: 'sk-test-dummy', baseURL: slow.openaiBaseURL })
  const firstDelta = async () => {
    const started = performance.now()
    const stream = await slowClient.chat.completions.create({
      model: 'gpt-4o',
      messages: [{ role: 'user', content: 'slow' }],
      stream: true,
    })
    const headersAt = performance.now() - started
    for await (const chunk of stream) {
      if (chunk.choices[0]?.delta.content) return { headersAt, firstAt: performance.now() - started }
    }
    throw new Error('no delta')
  }
  try {
    const rec = await runTaped(store, 'slow-headers.jsonl', 'auto', firstDelta)
    expect(rec.result!.headersAt).toBeGreaterThanOrEqual(HEADERS - 5)
    const out = JSON.parse((await store.read('slow-headers.jsonl'))!.split('\n')[1]!).out
    expect(out.headersAt).toBeGreaterThanOrEqual(HEADERS - 5)
    // Event times count from the request, so the first event comes after the headers.
    expect(out.body.sse[0].t).toBeGreaterThanOrEqual(out.headersAt)
    installHttpBoundary({ timing: 'recorded' })
    const paced = await runTaped(store, 'slow-headers.jsonl', 'replay', firstDelta)
    installHttpBoundary({ timing: 'instant' })
    const instant = await runTaped(store, 'slow-headers.jsonl', 'replay', firstDelta)
    expect(paced.state.status).toBe('clean')
    // The headers come as late as they did live; instant replay does not wait for them.
    expect(paced.result!.headersAt).toBeGreaterThanOrEqual(HEADERS - 5)
    expect(paced.result!.firstAt).toBeGreaterThanOrEqual(out.body.sse[0].t - 5)
    expect(instant.result!.headersAt).toBeLessThan(HEADERS / 2)
  } finally {
    await slow.close()
  }
})

it('stores a stream whose bytes are not valid UTF-8 exactly, and replays the same bytes', async () => {
  // A server that splits no character but sends a byte that is not UTF-8 inside an event.
  const server = http.createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'text/event-stream' })
    res.write(Buffer.concat([Buffer.from('data: {"v":"caf'), Buffer.from([0xe9]), Buffer.from('"}\n\n')]))
    res.end('data: [DONE]\n\n')
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const url = `http://127.0.0.1:${(server.address() as { port: number }).port}`
  boundary.addModelEndpoints(url)
  const bytes = async () => Buffer.from(await (await fetch(`${url}/v1/stream`)).arrayBuffer()).toString('hex')
  try {
    const live = await bytes()
    const rec = await runTaped(store, 'latin1.jsonl', 'auto', bytes)
    expect(rec.result).toBe(live)
    const replay = await runTaped(store, 'latin1.jsonl', 'replay', bytes)
    expect(replay.result).toBe(live)
    expect(replay.state.status).toBe('clean')
  } finally {
    server.close()
  }
})
