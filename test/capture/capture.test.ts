import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import net from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { type Capture, type CapturedFile, createCapture } from '@agent-tape/capture'
import {
  type CaptureSource,
  createMemoryStore,
  currentTape,
  isConfigError,
  openTape,
  parseCassette,
  runWithTape,
} from '@agent-tape/core'
import type { FakeProvider } from '@agent-tape/fake-provider'
import OpenAI from 'openai'
import { afterAll, afterEach, beforeAll, expect, it } from 'vitest'
import { askCity, startCityModel } from './support/city-agent.js'

let provider: FakeProvider
let client: OpenAI
let dir: string
const captures: Capture[] = []
const logs: string[] = []

beforeAll(async () => {
  provider = await startCityModel()
  client = new OpenAI({ apiKey: 'sk-test-dummy', baseURL: provider.openaiBaseURL, maxRetries: 0 })
})
afterAll(() => provider.close())
afterEach(async () => {
  for (const capture of captures.splice(0)) await capture.close()
  logs.length = 0
  if (dir) rmSync(dir, { recursive: true, force: true })
})

function captureInto(options: Parameters<typeof createCapture>[0] = {}): Capture {
  dir = mkdtempSync(join(tmpdir(), 'agent-tape-capture-'))
  const capture = createCapture({
    ...(options.sink ? {} : { dir }),
    modelEndpoints: [provider.openaiBaseURL],
    log: (message) => logs.push(message),
    ...options,
  })
  captures.push(capture)
  return capture
}

function written(): { file: string; text: string; source: CaptureSource }[] {
  return readdirSync(dir)
    .filter((f) => /_[0-9a-z]{12}\.jsonl$/.test(f))
    .sort()
    .map((file) => {
      const text = readFileSync(join(dir, file), 'utf8')
      return { file, text, source: parseCassette(text, file).header.source as CaptureSource }
    })
}

it('keeps only the runs that failed, each with its input, its outcome and its own decisions', async () => {
  const capture = captureInto()
  const cities = ['Paris', 'Lyon', 'Nice', 'Oslo']
  const results = await Promise.allSettled(
    cities.map((city, i) =>
      capture.run('weather', { city }, async () => {
        const answer = await askCity(client, city)
        if (i % 2 === 1) throw new Error(`no forecast for ${city}`)
        return answer
      }),
    ),
  )
  // The app sees what it would without capture.
  expect(results.map((r) => (r.status === 'fulfilled' ? r.value : (r.reason as Error).message))).toEqual([
    'It is 14:05 in Paris, 18°C.',
    'no forecast for Lyon',
    'It is 14:05 in Nice, 18°C.',
    'no forecast for Oslo',
  ])
  await capture.flush()
  const files = written()
  expect(
    files.map((f) => f.source.input).sort((a, b) => JSON.stringify(a).localeCompare(JSON.stringify(b))),
  ).toEqual([{ city: 'Lyon' }, { city: 'Oslo' }])
  for (const { file, text, source } of files) {
    const city = (source.input as { city: string }).city
    expect(file).toMatch(
      new RegExp(`^\\d{4}-\\d\\d-\\d\\dT\\d\\d-\\d\\d-\\d\\d\\.\\d{3}Z_weather_${source.runId}\\.jsonl$`),
    )
    expect(source).toMatchObject({
      kind: 'capture',
      name: 'weather',
      outcome: { ok: false, error: { name: 'Error', message: `no forecast for ${city}` } },
    })
    expect(parseCassette(text, file).decisions.map((d) => d.kind)).toEqual(['llm', 'llm', 'llm'])
    for (const other of cities) expect(text.includes(`time in ${other}?`)).toBe(other === city)
  }
  expect(capture.stats()).toMatchObject({ runs: 4, recorded: 4, failed: 2, written: 2, discarded: 2 })
})

it('a kept run replays with no network, as a test would replay it', async () => {
  const capture = captureInto({ keep: 'all' })
  const answer = await capture.run('weather', { city: 'Brest' }, () => askCity(client, 'Brest', true))
  await capture.flush()
  const { file, text } = written()[0]!
  const before = provider.requests.length
  const store = createMemoryStore({ [file]: text })
  const tape = await openTape({ id: 'replay', cassettePath: file, store, mode: 'replay' })
  const replayed = await runWithTape(tape, () => askCity(client, 'Brest', true))
  const state = await tape.finish()
  expect(replayed).toBe(answer)
  expect(state.status).toBe('clean')
  expect(provider.requests.length).toBe(before)
})

it('a request made outside every captured run passes while runs are open, where a test tape refuses it', async () => {
  const capture = captureInto()
  let release!: () => void
  let started!: () => void
  const gate = new Promise<void>((resolve) => (release = resolve))
  const open = new Promise<void>((resolve) => (started = resolve))
  const running = capture.run('blocked', {}, async () => {
    started()
    await gate
    throw new Error('kept')
  })
  await open
  // Outside the run, to the model endpoint: it reaches the model.
  const outside = await client.chat.completions.create({
    model: 'gpt-4o',
    messages: [{ role: 'user', content: 'What is the weather and time in Outside?' }],
    tools: [],
  })
  const call = outside.choices[0]!.message.tool_calls?.[0]
  expect(call?.type === 'function' && call.function.name).toBe('get_weather')
  // The same through the global fetch, which the boundary intercepts (the client above took
  // fetch before the capture installed it, and reaches undici's dispatcher).
  const viaFetch = await fetch(`${provider.openaiBaseURL}/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ model: 'gpt-4o', messages: [{ role: 'user', content: 'Time in Outside?' }] }),
  })
  expect(viaFetch.status).toBe(200)
  // A raw connection to the model's host, inside and outside the run: neither is refused.
  const port = Number(new URL(provider.url).port)
  await expect(connectOnce(port)).resolves.toBe('connected')
  await capture.run('raw', {}, () => connectOnce(port)).then((r) => expect(r).toBe('connected'))
  release()
  await expect(running).rejects.toThrow('kept')
  await capture.flush()
  // The outside request is in no cassette.
  for (const { text } of written()) expect(text).not.toContain('Outside')

  // A test's tape, by contrast, refuses a request it cannot attribute.
  const tape = await openTape({
    id: 't',
    cassettePath: 't.jsonl',
    store: createMemoryStore(),
    mode: 'update',
    env: {},
  })
  let releaseTape!: () => void
  const tapeGate = new Promise<void>((resolve) => (releaseTape = resolve))
  const tapeRun = runWithTape(tape, () => tapeGate)
  await expect(
    fetch(`${provider.openaiBaseURL}/chat/completions`, { method: 'POST', body: '{}' }),
  ).rejects.toMatchObject({ code: 'ERR_TAPE_UNATTRIBUTED' })
  releaseTape()
  await tapeRun
})

function connectOnce(port: number): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1', () => {
      socket.end()
      resolve('connected')
    })
    socket.on('error', reject)
  })
}

it('the app reads a streamed answer as it arrives', async () => {
  const slow = await startCityModel(60)
  try {
    const capture = captureInto({ keep: 'all', modelEndpoints: [slow.openaiBaseURL] })
    const slowClient = new OpenAI({ apiKey: 'sk-test-dummy', baseURL: slow.openaiBaseURL, maxRetries: 0 })
    const arrivals = await capture.run('stream', {}, async () => {
      const stream = await slowClient.chat.completions.create({
        model: 'gpt-4o',
        stream: true,
        messages: [
          { role: 'user', content: 'What is the weather and time in Rome?' },
          { role: 'tool', tool_call_id: 'a', content: 'x' },
          { role: 'tool', tool_call_id: 'b', content: 'y' },
        ],
      })
      const times: number[] = []
      for await (const chunk of stream) if (chunk.choices[0]?.delta?.content) times.push(performance.now())
      return times
    })
    // Three text deltas 60 ms apart: read one by one, not once the whole answer was in.
    expect(arrivals).toHaveLength(3)
    expect(arrivals[2]! - arrivals[0]!).toBeGreaterThan(80)
    await capture.flush()
    expect(written()).toHaveLength(1)
  } finally {
    await slow.close()
  }
})

it('capture.fail keeps a run that returned, with why and what it returned', async () => {
  const capture = captureInto()
  const answer = await capture.run('weather', { city: 'Lille' }, async () => {
    const text = await askCity(client, 'Lille')
    expect(capture.fail('the user reported a wrong temperature')).toBe(true)
    return { text }
  })
  expect(answer).toEqual({ text: 'It is 14:05 in Lille, 18°C.' })
  expect(capture.fail('outside any run')).toBe(false)
  await capture.flush()
  expect(written().map((f) => f.source.outcome)).toEqual([
    {
      ok: false,
      reason: 'the user reported a wrong temperature',
      value: { text: 'It is 14:05 in Lille, 18°C.' },
    },
  ])
})

it('at sample 0 nothing is recorded and every run is the app alone', async () => {
  const capture = captureInto({ sample: 0 })
  const results = await Promise.allSettled([
    capture.run('weather', {}, () => askCity(client, 'Nantes')),
    capture.run('weather', {}, async (run) => {
      expect(run).toMatchObject({ recorded: false, id: '' })
      expect(currentTape()).toBeUndefined()
      throw new Error('failed')
    }),
  ])
  expect(results.map((r) => (r.status === 'fulfilled' ? r.value : (r.reason as Error).message))).toEqual([
    'It is 14:05 in Nantes, 18°C.',
    'failed',
  ])
  await capture.flush()
  expect(written()).toEqual([])
  expect(capture.stats()).toMatchObject({ runs: 2, recorded: 0, failed: 0, written: 0 })
})

it('a tool runs for real inside a captured run, its stub never', async () => {
  const capture = captureInto({ keep: 'all' })
  const calls: string[] = []
  const result = await capture.run('refund', {}, async () => {
    const tools = currentTape()!.tools({
      refund: {
        run: async (id: string) => {
          calls.push(`refund ${id}`)
          return { refunded: id }
        },
        effect: 'irreversible',
        stub: async (id: string) => {
          calls.push(`stub ${id}`)
          return { refunded: 'stub' }
        },
      },
    })
    return tools.refund('pay_2')
  })
  expect(result).toEqual({ refunded: 'pay_2' })
  expect(calls).toEqual(['refund pay_2'])
  await capture.flush()
  const { text, file } = written()[0]!
  expect(parseCassette(text, file).decisions.map((d) => [d.kind, d.out])).toEqual([
    ['tool', { refunded: 'pay_2' }],
  ])
})

it('a run inside another run, or inside a test tape, is part of it', async () => {
  const capture = captureInto({ keep: 'all' })
  await capture.run('outer', { city: 'Metz' }, async () => {
    const outer = currentTape()
    await capture.run('inner', {}, async (run) => {
      expect(run.recorded).toBe(false)
      expect(currentTape()).toBe(outer)
      await askCity(client, 'Metz')
    })
  })
  const tape = await openTape({
    id: 't',
    cassettePath: 't.jsonl',
    store: createMemoryStore(),
    mode: 'update',
    env: {},
  })
  await runWithTape(tape, () => capture.run('in-test', {}, async () => expect(currentTape()).toBe(tape)))
  await capture.flush()
  expect(written().map((f) => f.source.name)).toEqual(['outer'])
  expect(capture.stats()).toMatchObject({ runs: 3, recorded: 1, written: 1 })
})

it('refuses unknown and invalid options, naming the closest one', () => {
  const attempt = (options: object) => {
    try {
      createCapture(options as never)
      return 'created'
    } catch (error) {
      expect(isConfigError(error)).toBe(true)
      return (error as Error).message
    }
  }
  expect(attempt({ dir: 'x', sampel: 0.5 })).toBe(
    '[agent-tape] Unknown option "sampel" (did you mean "sample"?) in the createCapture() options: agent-tape would ignore it, and the run would not do what the option asks. Use one of: dir, sink, sample, keep, maxBytes, maxRunMs, maxQueuedBytes, maxFiles, maxAgeMs, redactors, normalizers, modelEndpoints, allowSecrets, log.',
  )
  expect(attempt({ dir: 'x', sample: 2 })).toContain(
    'Invalid "sample" in the createCapture() options: it is 2',
  )
  expect(attempt({ dir: 'x', keep: 'passed' })).toContain('"failed" or "all"')
  expect(attempt({})).toContain('No "dir" and "sink"')
  expect(attempt({ dir: 'x', sink: () => {} })).toContain('Both "dir" and "sink"')
  expect(attempt({ sink: () => {}, maxFiles: 3 })).toContain('"maxFiles" and "maxAgeMs" need a "dir"')
  expect(attempt({ dir: 'x', maxBytes: 0 })).toContain('Invalid "maxBytes"')
})

it('keeps at most maxFiles runs, the oldest removed first, and no file of anyone else', async () => {
  const capture = captureInto({ keep: 'all', maxFiles: 3 })
  writeFileSync(join(dir, 'notes.jsonl'), 'not ours\n')
  for (let i = 0; i < 5; i++) {
    await capture.run('count', { i }, async () => i)
    await capture.flush()
  }
  expect(written().map((f) => f.source.input)).toEqual([{ i: 2 }, { i: 3 }, { i: 4 }])
  expect(readFileSync(join(dir, 'notes.jsonl'), 'utf8')).toBe('not ours\n')
  expect(capture.stats()).toMatchObject({ written: 5, removed: 2 })
})

it('hands each kept run to a sink, named as in a directory', async () => {
  const files: CapturedFile[] = []
  const capture = captureInto({ sink: (file) => void files.push(file) })
  await expect(
    capture.run('weather', { city: 'Arles' }, () => Promise.reject(new Error('x'))),
  ).rejects.toThrow('x')
  await capture.flush()
  expect(files).toHaveLength(1)
  expect(files[0]).toMatchObject({ runName: 'weather', failed: true })
  expect(files[0]!.name).toMatch(new RegExp(`_weather_${files[0]!.runId}\\.jsonl$`))
  expect(parseCassette(files[0]!.text, files[0]!.name).header.source).toMatchObject({
    input: { city: 'Arles' },
  })
})
