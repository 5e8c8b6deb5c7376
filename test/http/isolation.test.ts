import { createHash, randomBytes } from 'node:crypto'
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { createMemoryStore, openTape, runWithTape } from '@agent-tape/core'
import { type FakeProvider, startFakeProvider } from '@agent-tape/fake-provider'
import { installHttpBoundary } from '@agent-tape/http'
import { handleRequest } from '@agent-tape/http/internal'
import OpenAI from 'openai'
import { afterAll, beforeAll, expect, it } from 'vitest'
import { runWeatherAgent, weatherScript } from '../support/openai-agent.js'
import { runTaped } from '../support/tape-run.js'

const boundary = installHttpBoundary()
const store = createMemoryStore()
let provider: FakeProvider
let client: OpenAI

beforeAll(async () => {
  provider = await startFakeProvider({ reply: (req) => weatherScript(req.body as never), chunkDelayMs: 3 })
  boundary.addModelEndpoints(provider.url)
  client = new OpenAI({ apiKey: 'sk-test-dummy', baseURL: provider.openaiBaseURL })
})
afterAll(() => provider.close())

it('concurrent tapes in one process never record into each other', async () => {
  const cities = ['Paris', 'Lyon', 'Nice', 'Lille', 'Brest']
  const question = (city: string) => `Weather and time in ${city}?`
  const runs = await Promise.all(
    cities.map((city) =>
      runTaped(store, `${city}.jsonl`, 'auto', () => runWeatherAgent(client, question(city), true)),
    ),
  )
  for (const [i, city] of cities.entries()) {
    expect(runs[i]!.state).toMatchObject({ recorded: 3, written: true })
    const text = store.files[`${city}.jsonl`]!
    for (const other of cities) expect(text.includes(question(other))).toBe(other === city)
  }
  const replays = await Promise.all(
    cities
      .reverse()
      .map((city) =>
        runTaped(store, `${city}.jsonl`, 'replay', () => runWeatherAgent(client, question(city), true)),
      ),
  )
  expect(replays.map((r) => r.state.status)).toEqual(cities.map(() => 'clean'))
})

it('a model request made outside every running tape fails loudly instead of guessing', async () => {
  let release!: () => void
  let started!: () => void
  const gate = new Promise<void>((resolve) => (release = resolve))
  const isRunning = new Promise<void>((resolve) => (started = resolve))
  const running = runTaped(store, 'owner.jsonl', 'auto', () => {
    started()
    return gate
  })
  await isRunning
  // A credential in the query is not printed.
  const key = `AIza${'Sy0rphanK3y'.repeat(4).slice(0, 35)}`
  const orphan = await fetch(`${provider.openaiBaseURL}/chat/completions?key=${key}&alt=sse`, {
    method: 'POST',
    body: '{}',
  }).catch((e: Error) => e)
  release()
  await running
  expect(orphan).toMatchObject({ name: 'AgentTapeError', code: 'ERR_TAPE_UNATTRIBUTED' })
  expect((orphan as Error).message).toBe(
    `[agent-tape] Cannot attribute POST ${provider.openaiBaseURL}/chat/completions?key=REDACTED&alt=sse to a tape: 1 tape is running, but this request was made outside the async context of any of them (from a timer or promise started outside the test, or from a shared client's background work), and guessing could record it into the wrong cassette. Make the request from inside the tape test (or from code it awaits), or run it inside runWithTape(tape, fn).`,
  )
})

it('in replay no request leaves the process, taped or not', async () => {
  const tape = await openTape({
    id: 'x',
    cassettePath: 'empty.jsonl',
    store: createMemoryStore({
      'empty.jsonl': '{"agentTape":1,"keyScheme":1,"test":"x","recordedAt":"2026-01-01T00:00:00.000Z"}\n',
    }),
    mode: 'replay',
    env: {},
  })
  let performed = 0
  const outcome = await runWithTape(tape, () =>
    handleRequest(
      new Request('https://weather.example.com/v1/today?city=Paris'),
      { modelEndpoints: [], timing: 'instant' },
      async () => {
        performed++
        return new Response('live')
      },
    ),
  )
  expect(performed).toBe(0)
  expect(outcome.type).toBe('error')
  expect((outcome as { error: Error }).error.message).toMatch(
    /^\[agent-tape\] Replay miss at step 0, http GET https:\/\/weather\.example\.com\/v1\/today: the run asked for a decision that was never recorded/,
  )
})

it('binary downloads and multipart uploads round-trip byte for byte, keyed stably', async () => {
  const image = randomBytes(4096)
  const server = createServer((req, res) => {
    const chunks: Buffer[] = []
    req.on('data', (c: Buffer) => chunks.push(c))
    req.on('end', () => {
      if (req.method === 'GET') {
        res.writeHead(200, { 'content-type': 'image/png' }).end(image)
      } else {
        const digest = createHash('sha256').update(Buffer.concat(chunks)).digest('hex').slice(0, 8)
        res
          .writeHead(200, { 'content-type': 'application/json' })
          .end(JSON.stringify({ received: digest.length }))
      }
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  const remove = boundary.addModelEndpoints(`${base}/files`)
  const run = async () => {
    const form = new FormData()
    form.append('purpose', 'transcription')
    form.append('file', new Blob([image], { type: 'audio/wav' }), 'clip.wav')
    const upload = await (await fetch(`${base}/files/upload`, { method: 'POST', body: form })).json()
    const download = Buffer.from(await (await fetch(`${base}/files/image.png`)).arrayBuffer())
    return { upload, download }
  }
  try {
    const rec = await runTaped(store, 'binary.jsonl', 'auto', run)
    server.close()
    const replay = await runTaped(store, 'binary.jsonl', 'replay', run)
    expect(replay.state).toMatchObject({ status: 'clean', replayed: 2 })
    expect(replay.result!.download.equals(image)).toBe(true)
    expect(replay.result!.upload).toEqual(rec.result!.upload)
  } finally {
    remove()
  }
})
