import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import type { Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { type Capture, createCapture } from '@agent-tape/capture'
import { type CaptureSource, currentTape, parseCassette } from '@agent-tape/core'
import type { FakeProvider } from '@agent-tape/fake-provider'
import express from 'express'
import OpenAI from 'openai'
import { afterAll, afterEach, beforeAll, expect, it } from 'vitest'
import { askCity, startCityModel } from './support/city-agent.js'

let provider: FakeProvider
let client: OpenAI
let dir: string
let server: Server | undefined
const captures: Capture[] = []
const logs: string[] = []

beforeAll(async () => {
  provider = await startCityModel(2)
  // As in production: a pooled connection the server closed meanwhile is retried, not fatal.
  client = new OpenAI({ apiKey: 'sk-test-dummy', baseURL: provider.openaiBaseURL, maxRetries: 2 })
})
afterAll(() => provider.close())
afterEach(async () => {
  await new Promise((resolve) => (server ? server.close(resolve) : resolve(undefined)))
  server = undefined
  for (const capture of captures.splice(0)) await capture.close()
  logs.length = 0
  rmSync(dir, { recursive: true, force: true })
})

/** A capture ready to record, as a server that awaits `capture.ready()` before it listens. */
async function captureInto(options: Partial<Parameters<typeof createCapture>[0]> = {}): Promise<Capture> {
  dir = mkdtempSync(join(tmpdir(), 'agent-tape-capture-'))
  const capture = createCapture({
    dir,
    modelEndpoints: [provider.openaiBaseURL],
    log: (message) => logs.push(message),
    ...options,
  })
  captures.push(capture)
  await capture.ready()
  return capture
}

function listen(app: express.Express): Promise<string> {
  return new Promise((resolve) => {
    server = app.listen(0, '127.0.0.1', () =>
      resolve(`http://127.0.0.1:${(server!.address() as AddressInfo).port}`),
    )
  })
}

function written(): { file: string; text: string; source: CaptureSource }[] {
  return readdirSync(dir)
    .filter((f) => /_[0-9a-z]{12}\.jsonl$/.test(f))
    .map((file) => {
      const text = readFileSync(join(dir, file), 'utf8')
      return { file, text, source: parseCassette(text, file).header.source as CaptureSource }
    })
}

it('200 concurrent requests to an Express server: only the failed runs are kept, each holding only its own run', async () => {
  const capture = await captureInto()
  const app = express()
  app.post(
    '/weather',
    express.json(),
    capture.handler('weather', async (req, res) => {
      const { city, n } = req.body as { city: string; n: number }
      const answer = await askCity(client, city, n % 2 === 0)
      if (n % 10 === 0) throw new Error(`no forecast for ${city}`)
      res.json({ answer })
    }),
  )
  app.use((error: Error, _req: express.Request, res: express.Response, _next: express.NextFunction) => {
    res.status(500).json({ error: error.message })
  })
  const url = await listen(app)
  const cities = Array.from({ length: 200 }, (_, n) => `City-${n}`)
  const responses = await Promise.all(
    cities.map((city, n) =>
      fetch(`${url}/weather`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ city, n }),
      }).then(async (r) => ({ status: r.status, body: await r.json() })),
    ),
  )
  responses.forEach((r, n) => {
    expect(r).toEqual(
      n % 10 === 0
        ? { status: 500, body: { error: `no forecast for City-${n}` } }
        : { status: 200, body: { answer: `It is 14:05 in City-${n}, 18°C.` } },
    )
  })
  await capture.flush()
  const files = written()
  expect(files.map((f) => (f.source.input as { n: number }).n).sort((a, b) => a - b)).toEqual(
    cities.map((_, n) => n).filter((n) => n % 10 === 0),
  )
  for (const { text, file, source } of files) {
    const { city } = source.input as { city: string }
    expect(source.outcome).toEqual({
      ok: false,
      error: { name: 'Error', message: `no forecast for ${city}` },
    })
    const cassette = parseCassette(text, file)
    // Three model requests (and a retry when a pooled connection was closed under the load).
    expect(cassette.decisions.length).toBeGreaterThanOrEqual(3)
    expect(cassette.decisions.every((d) => d.kind === 'llm')).toBe(true)
    // Every other city's question is in no other cassette (City-1 is a prefix of City-10: quoted).
    const asked = [...text.matchAll(/time in (City-\d+)\?/g)].map((m) => m[1])
    expect(new Set(asked)).toEqual(new Set([city]))
  }
  expect(capture.stats()).toMatchObject({ runs: 200, recorded: 200, failed: 20, written: 20, discarded: 180 })
  expect(Object.values(capture.stats().dropped).every((n) => n === 0)).toBe(true)
})

it('a route that marks its run failed and answers keeps what it answered, for the promoted test to assert', async () => {
  const capture = await captureInto()
  const app = express()
  app.post(
    '/weather',
    express.json(),
    capture.handler('weather', async (req, res) => {
      const answer = await askCity(client, (req.body as { city: string }).city)
      capture.fail('the user reported a wrong temperature')
      res.json({ answer })
    }),
  )
  app.get(
    '/plain',
    capture.handler('plain', async (_req, res) => {
      await askCity(client, 'Metz')
      capture.fail('too slow')
      res.type('text/plain').send('fine, slowly')
    }),
  )
  const url = await listen(app)
  const response = await fetch(`${url}/weather`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ city: 'Brest' }),
  })
  expect(await response.json()).toEqual({ answer: 'It is 14:05 in Brest, 18°C.' })
  expect(await (await fetch(`${url}/plain`)).text()).toBe('fine, slowly')
  await capture.flush()
  expect(written().map((f) => f.source.outcome)).toEqual(
    expect.arrayContaining([
      {
        ok: false,
        reason: 'the user reported a wrong temperature',
        value: { answer: 'It is 14:05 in Brest, 18°C.' },
      },
      { ok: false, reason: 'too slow', value: 'fine, slowly' },
    ]),
  )
})

it('middleware: a run per request until the response ends, failed by a failed status', async () => {
  const capture = await captureInto()
  const app = express()
  app.use(express.json())
  app.use(capture.middleware('api'))
  app.post('/weather', async (req, res) => {
    const answer = await askCity(client, (req.body as { city: string }).city)
    res.status(answer.includes('Oslo') ? 503 : 200).json({ answer })
  })
  const url = await listen(app)
  const post = (city: string) =>
    fetch(`${url}/weather`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ city }),
    })
  expect((await post('Paris')).status).toBe(200)
  expect((await post('Oslo')).status).toBe(503)
  await capture.flush()
  expect(written().map((f) => [f.source.input, f.source.outcome])).toEqual([
    [
      { city: 'Oslo' },
      { ok: false, reason: 'responded with status 503', value: { answer: 'It is 14:05 in Oslo, 18°C.' } },
    ],
  ])
})

it('a fetch handler: the run lasts until the streamed body ends, and the client reads it as it comes', async () => {
  const capture = await captureInto({ keep: 'all' })
  const handler = capture.fetchHandler('chat', async (request: Request) => {
    const { city } = (await request.json()) as { city: string }
    const stream = await client.chat.completions.create({
      model: 'gpt-4o',
      stream: true,
      messages: [
        { role: 'user', content: `What is the weather and time in ${city}?` },
        { role: 'tool', tool_call_id: 'a', content: 'x' },
        { role: 'tool', tool_call_id: 'b', content: 'y' },
      ],
    })
    const encoder = new TextEncoder()
    const body = new ReadableStream<Uint8Array>({
      async start(controller) {
        for await (const chunk of stream)
          controller.enqueue(encoder.encode(chunk.choices[0]?.delta?.content ?? ''))
        // Made while the body streams, after the handler returned: still this run's.
        await askCity(client, `${city}-after`)
        controller.close()
      },
    })
    return new Response(body, { headers: { 'content-type': 'text/plain', 'x-kept': 'yes' } })
  })
  const response = await handler(
    new Request('http://app.test/chat', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ city: 'Rome' }),
    }),
  )
  expect(response.headers.get('x-kept')).toBe('yes')
  expect(await response.text()).toBe('It is 14:05 in Rome, 18°C.')
  await capture.flush()
  const kept = written()[0]!
  expect(kept.source).toMatchObject({ name: 'chat', input: { city: 'Rome' }, outcome: { ok: true } })
  expect(parseCassette(kept.text, kept.file).decisions).toHaveLength(4)
  // A failed status keeps the run with keep: 'failed'; an unsampled handler is the handler itself.
  const plain = async () => new Response('down', { status: 502 })
  expect(createCapture({ dir, sample: 0 }).fetchHandler('x', plain)).not.toBe(plain)
})

it('a run whose input or outcome holds a secret is dropped, counted and logged once; the app is unaffected', async () => {
  const capture = await captureInto()
  const key = `sk-proj-${'A1b2C3d4E5f6G7h8'.repeat(3)}`
  for (const city of ['Paris', 'Lyon']) {
    await expect(
      capture.run('weather', { city, apiKey: key }, async () => {
        await askCity(client, city)
        throw new Error('failed')
      }),
    ).rejects.toThrow('failed')
  }
  await expect(
    capture.run('weather', { city: 'Nice' }, () => Promise.reject(new Error(`bad key ${key}`))),
  ).rejects.toThrow(key)
  await capture.flush()
  expect(written()).toEqual([])
  expect(capture.stats().dropped.secret).toBe(3)
  expect(logs).toHaveLength(1)
  expect(logs[0]).toMatch(
    /^\[agent-tape\] Dropped captured run weather \([0-9a-z]{12}\): Refusing to write cassette .*the header/,
  )
  expect(logs[0]).toContain(
    'Later runs dropped for this reason are counted in capture.stats().dropped["secret"], and logged as counts at most once a minute',
  )
  expect(logs[0]).not.toContain(key)
})

it('a run over maxBytes, one whose input is not JSON, one with a result that cannot be recorded: dropped for each reason', async () => {
  const capture = await captureInto({ keep: 'all', maxBytes: 2000 })
  expect(await capture.run('big', {}, () => askCity(client, 'Paris'))).toBe('It is 14:05 in Paris, 18°C.')
  const cyclic: Record<string, unknown> = {}
  cyclic.self = cyclic
  expect(await capture.run('cyclic', cyclic, async () => 'ok')).toBe('ok')
  const counted = await capture.run('tool', {}, () => currentTape()!.tool('count', {}, () => 10n))
  expect(counted).toBe(10n)
  await capture.flush()
  expect(written()).toEqual([])
  expect(capture.stats().dropped).toMatchObject({ 'max-bytes': 1, input: 1, incomplete: 1 })
  // A kept run is decided and written after it ends; one that cannot be kept is dropped as it ends.
  const reasons = logs.map((l) => /: (its .*?|part of it.*?)[,(]/.exec(l)?.[1])
  expect(reasons).toHaveLength(3)
  expect(reasons).toEqual(
    expect.arrayContaining([
      expect.stringMatching(/^its cassette is \d+ bytes/),
      'its input cannot be stored as JSON ',
      'part of it could not be recorded',
    ]),
  )
})

it('an unwritable capture directory: one logged error, capture off, the app unaffected', async () => {
  const root = mkdtempSync(join(tmpdir(), 'agent-tape-capture-'))
  writeFileSync(join(root, 'not-a-dir'), '')
  const capture = await captureInto({ dir: join(root, 'not-a-dir', 'captures') })
  for (const city of ['Paris', 'Lyon', 'Nice']) {
    await expect(
      capture.run('weather', { city }, async () => {
        await askCity(client, city)
        throw new Error(`failed in ${city}`)
      }),
    ).rejects.toThrow(`failed in ${city}`)
  }
  await capture.flush()
  // Found as the capture started, which turned itself off: nothing is recorded, nothing dropped.
  expect(capture.stats()).toMatchObject({ runs: 3, recorded: 0, written: 0, dropped: { 'write-error': 0 } })
  expect(logs).toEqual([
    expect.stringContaining(
      `[agent-tape] Capture is off: cannot write captured runs to ${join(root, 'not-a-dir', 'captures')}: ENOTDIR`,
    ),
  ])
  rmSync(root, { recursive: true, force: true })
})

it('a sink that throws drops the run, counted and logged once, and never reaches the app', async () => {
  const capture = await captureInto({
    sink: () => {
      throw new Error('bucket unavailable')
    },
    dir: undefined,
  })
  for (const city of ['Paris', 'Lyon']) {
    await expect(capture.run('weather', { city }, () => Promise.reject(new Error('x')))).rejects.toThrow('x')
  }
  await capture.flush()
  expect(capture.stats().dropped['sink-error']).toBe(2)
  expect(logs).toEqual([expect.stringContaining('the sink threw: bucket unavailable')])
})

it('a handler run that starts before the boundary has loaded runs unrecorded, counted as starting; capture.run waits instead', async () => {
  dir = mkdtempSync(join(tmpdir(), 'agent-tape-capture-'))
  const capture = createCapture({ dir, modelEndpoints: [provider.openaiBaseURL], log: (m) => logs.push(m) })
  captures.push(capture)
  // Called in the tick createCapture returned in: the boundary cannot have loaded yet.
  const early = capture.fetchHandler('early', async () => new Response('down', { status: 502 }))
  const response = await early(new Request('http://app.test/early', { method: 'POST', body: '{}' }))
  expect(response.status).toBe(502)
  expect(capture.stats().dropped.starting).toBe(1)
  expect(logs.join('\n')).toContain('it started before the HTTP boundary had loaded')
  expect(logs.join('\n')).toContain('Await capture.ready() before the server listens')
  await expect(
    capture.run('later', { city: 'Oslo' }, async () => {
      await askCity(client, 'Oslo')
      throw new Error('kept')
    }),
  ).rejects.toThrow('kept')
  await capture.flush()
  expect(capture.stats()).toMatchObject({ recorded: 1, written: 1 })
  expect(parseCassette(written()[0]!.text, 'later').decisions.map((d) => d.kind)).toContain('llm')
})
