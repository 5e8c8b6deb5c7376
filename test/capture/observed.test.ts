import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs'
import http from 'node:http'
import net from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { type Capture, createCapture } from '@agent-tape/capture'
import { currentTape } from '@agent-tape/core'
import { type FakeProvider, startFakeProvider } from '@agent-tape/fake-provider'
import OpenAI from 'openai'
import { afterAll, beforeAll, expect, it } from 'vitest'
import { askCity, CITY_TOOLS, startCityModel } from './support/city-agent.js'

// How tests ask a capture to intercept its runs, as a test's tape does, rather than observe them.
const INTERCEPT_RUNS = Symbol.for('agent-tape.capture.intercept-runs')

const dirs: string[] = []
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true })
})

/** A loopback server that redirects `/old` to `/new`, which answers JSON. */
let redirector: http.Server
let redirectorUrl: string
/** A port nothing listens on. */
let closedUrl: string
beforeAll(async () => {
  redirector = http.createServer((req, res) => {
    if (req.url === '/old') {
      res.writeHead(307, { location: '/new' }).end()
      return
    }
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ moved: true }))
  })
  await new Promise<void>((resolve) => redirector.listen(0, '127.0.0.1', resolve))
  redirectorUrl = `http://127.0.0.1:${(redirector.address() as net.AddressInfo).port}`
  const spare = net.createServer()
  await new Promise<void>((resolve) => spare.listen(0, '127.0.0.1', resolve))
  closedUrl = `http://127.0.0.1:${(spare.address() as net.AddressInfo).port}/v1`
  await new Promise((resolve) => spare.close(resolve))
})
afterAll(() => redirector.close())

interface Providers {
  city: FakeProvider
  streamed: FakeProvider
  gzip: FakeProvider
  laneA: FakeProvider
  laneB: FakeProvider
}

/** Fresh providers: the same seed gives the same ids in the same order, for each way of recording. */
async function startProviders(): Promise<Providers> {
  const city = await startCityModel(0, 'city')
  const streamed = await startCityModel(3, 'streamed')
  const gzip = await startFakeProvider({ seed: 'gzip', gzip: true, reply: () => ({ text: 'zipped' }) })
  const laneA = await startCityModel(0, 'lane-a')
  const laneB = await startCityModel(0, 'lane-b')
  return { city, streamed, gzip, laneA, laneB }
}

function clientOf(provider: FakeProvider | string): OpenAI {
  const baseURL = typeof provider === 'string' ? provider : provider.openaiBaseURL
  return new OpenAI({ apiKey: 'sk-test-dummy', baseURL, maxRetries: 0 })
}

/**
 * The same runs, each a kind of traffic a run can have: plain and streamed answers, a gzipped
 * one, sub-agents in lanes at once, a tool between requests, two requests in flight together,
 * a request that fails to connect, and a redirect followed.
 */
async function captureRuns(intercept: boolean): Promise<Map<string, string>> {
  const providers = await startProviders()
  const dir = mkdtempSync(join(tmpdir(), 'agent-tape-observed-'))
  dirs.push(dir)
  const capture: Capture = createCapture({
    dir,
    keep: 'all',
    modelEndpoints: [...Object.values(providers).map((p) => p.openaiBaseURL), closedUrl, redirectorUrl],
    log: () => {},
    ...(intercept ? { [INTERCEPT_RUNS]: true } : {}),
  })
  try {
    await capture.ready()
    const { city, streamed, gzip, laneA, laneB } = providers
    await capture.run('plain', { city: 'Paris' }, () => askCity(clientOf(city), 'Paris'))
    await capture.run('streamed', { city: 'Rome' }, () => askCity(clientOf(streamed), 'Rome', true))
    await capture.run('gzip', {}, async () => {
      const answer = await clientOf(gzip).chat.completions.create({
        model: 'gpt-4o',
        messages: [{ role: 'user', content: 'zip it' }],
      })
      return answer.choices[0]!.message.content
    })
    await capture.run('lanes', {}, () => {
      const tape = currentTape()!
      return Promise.all([
        tape.lane('a', () => askCity(clientOf(laneA), 'Lima')),
        tape.lane('b', () => askCity(clientOf(laneB), 'Kyiv')),
      ])
    })
    await capture.run('tool', {}, async () => {
      const tape = currentTape()!
      const first = await askCity(clientOf(city), 'Oslo')
      const looked = await tape.tool('lookup', { q: first }, () => ({ found: first.length }))
      return { first, looked, second: await askCity(clientOf(city), 'Bern') }
    })
    await capture.run('overlap', {}, async () => {
      // A second request sent while the first answer still streams: the two overlap.
      const stream = await clientOf(streamed).chat.completions.create({
        model: 'gpt-4o',
        messages: [{ role: 'user', content: 'What is the weather and time in Riga?' }],
        tools: CITY_TOOLS,
        stream: true,
      })
      const chunks = stream[Symbol.asyncIterator]()
      await chunks.next()
      const other = await clientOf(city).chat.completions.create({
        model: 'gpt-4o',
        messages: [{ role: 'user', content: 'What is the weather and time in Baku?' }],
      })
      while (!(await chunks.next()).done) {}
      return other.choices[0]!.message.tool_calls?.length
    })
    await capture
      .run('refused', {}, () =>
        clientOf(closedUrl).chat.completions.create({
          model: 'gpt-4o',
          messages: [{ role: 'user', content: 'hi' }],
        }),
      )
      .catch(() => {})
    await capture.run('redirect', {}, async () => (await fetch(`${redirectorUrl}/old`)).json())
    await capture.flush()
    expect(capture.stats().dropped).toEqual(
      Object.fromEntries(Object.keys(capture.stats().dropped).map((r) => [r, 0])),
    )
  } finally {
    await capture.close()
    for (const provider of Object.values(providers)) await provider.close()
  }
  const files = new Map<string, string>()
  for (const file of readdirSync(dir)) {
    const name = /_([a-z]+)_[0-9a-z]{12}\.jsonl$/.exec(file)?.[1]
    if (name) files.set(name, readFileSync(join(dir, file), 'utf8'))
  }
  return files
}

/**
 * A cassette without what differs between two recordings of the same run: the run's id, its
 * salt, and times (the recording's, and the provider's clock in `created` and `date`).
 */
function comparable(text: string): unknown[] {
  return text
    .trim()
    .split('\n')
    .map((line) =>
      JSON.parse(line, (key, value) => {
        if (['recordedAt', 'envSalt', 'runId', 'test', 'date'].includes(key)) return '…'
        if (['ms', 'at', 'headersAt', 't', 'created'].includes(key) && typeof value === 'number') return 0
        return value
      }),
    )
}

it('a run observed and decided as it is kept writes the cassette intercepting writes, decision for decision', async () => {
  const intercepted = await captureRuns(true)
  const observed = await captureRuns(false)
  const names = ['gzip', 'lanes', 'overlap', 'plain', 'redirect', 'refused', 'streamed', 'tool']
  expect([...intercepted.keys()].sort()).toEqual(names)
  expect([...observed.keys()].sort()).toEqual(names)
  for (const name of names) {
    expect({ name, lines: comparable(observed.get(name)!) }).toEqual({
      name,
      lines: comparable(intercepted.get(name)!),
    })
  }
  // The times are the ones the run had: a streamed answer's events in order, within its time.
  const streamedLines = observed
    .get('streamed')!
    .trim()
    .split('\n')
    .slice(1)
    .map((l) => JSON.parse(l))
  for (const decision of streamedLines) {
    expect(decision.ms).toBeGreaterThan(0)
    const times = (decision.out.body.sse ?? []).map((e: { t: number }) => e.t)
    expect(times).toEqual([...times].sort((a, b) => a - b))
    expect(times.at(-1)).toBeLessThanOrEqual(decision.ms + 1)
    expect(decision.out.headersAt).toBeLessThanOrEqual(times[0])
  }
  expect(JSON.parse(observed.get('overlap')!.split('\n')[0]!).overlapped).toBe(true)
}, 60_000)

it('a run that is not kept is never decided: what it sent and received is dropped as it ends', async () => {
  const provider = await startCityModel(0, 'kept-or-not')
  const decided = { intercept: 0, observe: 0 }
  try {
    for (const way of ['intercept', 'observe'] as const) {
      const dir = mkdtempSync(join(tmpdir(), 'agent-tape-observed-'))
      dirs.push(dir)
      const capture = createCapture({
        dir,
        modelEndpoints: [provider.openaiBaseURL],
        // Called as each request is keyed: it counts the requests decided.
        normalizers: [
          {
            name: 'count',
            apply: (input) => {
              decided[way]++
              return input
            },
          },
        ],
        log: () => {},
        ...(way === 'intercept' ? { [INTERCEPT_RUNS]: true } : {}),
      })
      await capture.ready()
      await capture.run('fine', {}, () => askCity(clientOf(provider), 'Quito'))
      const afterFine = decided[way]
      await capture
        .run('broken', {}, async () => {
          await askCity(clientOf(provider), 'Accra')
          throw new Error('wrong answer')
        })
        .catch(() => {})
      await capture.close()
      expect(capture.stats()).toMatchObject({ recorded: 2, discarded: 1, written: 1 })
      if (way === 'observe') expect(afterFine).toBe(0)
      else expect(afterFine).toBe(3)
    }
  } finally {
    await provider.close()
  }
  // The kept run is decided once, request by request, either way.
  expect(decided.observe).toBe(3)
  expect(decided.intercept).toBe(6)
})

it('what cannot be noted of a request costs its run, never the request: it goes out as the app made it', async () => {
  const provider = await startCityModel(0, 'unnoted')
  const dir = mkdtempSync(join(tmpdir(), 'agent-tape-observed-'))
  dirs.push(dir)
  const logs: string[] = []
  const capture = createCapture({
    dir,
    keep: 'all',
    modelEndpoints: [provider.openaiBaseURL],
    log: (message) => logs.push(message),
  })
  try {
    await capture.ready()
    let reads = 0
    // Headers that can be read once only: noting them reads them first, then fetch reads them.
    const headers = {
      get 'content-type'() {
        reads++
        if (reads === 1) throw new Error('read once only')
        return 'application/json'
      },
    }
    const url = `${provider.openaiBaseURL}/chat/completions?api-key=s3cret-value`
    const answer = await capture.run('unnoted', {}, async () => {
      const response = await fetch(url, {
        method: 'POST',
        headers,
        body: JSON.stringify({ model: 'gpt-4o', messages: [{ role: 'user', content: 'Weather in Oslo?' }] }),
      })
      return response.status
    })
    expect(answer).toBe(200)
    await capture.flush()
    expect(capture.stats()).toMatchObject({ written: 0, dropped: { internal: 1 } })
    expect(logs).toHaveLength(1)
    expect(logs[0]).toContain('noting its request to')
    expect(logs[0]).toContain('failed (read once only); the request went out as the app made it')
    expect(logs[0]).not.toContain('s3cret-value')
  } finally {
    await capture.close()
    await provider.close()
  }
})
