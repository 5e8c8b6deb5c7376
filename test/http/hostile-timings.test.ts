import http from 'node:http'
import http2 from 'node:http2'
import { createMemoryStore, isAgentTapeError } from '@agent-tape/core'
import { type FakeProvider, startFakeProvider, type Turn } from '@agent-tape/fake-provider'
import { installHttpBoundary } from '@agent-tape/http'
import OpenAI from 'openai'
import { request as undiciRequest } from 'undici7'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import { runTaped } from '../support/tape-run.js'

// Cassettes whose times or headers no recording of agent-tape's would hold (hand-edited, or
// hostile): a replay must neither hang for the test's timeout with nothing said, nor fail with a
// bare socket error. The recordings here are real; each test then edits its cassette.
const boundary = installHttpBoundary()
const store = createMemoryStore()
let provider: FakeProvider
let turn: Turn = {}
const TEN_HOURS = 36_000_000

beforeAll(async () => {
  provider = await startFakeProvider({ reply: () => turn, http2: true })
  boundary.addModelEndpoints(provider.url, provider.http2Url!)
})
afterAll(() => provider.close())
afterEach(() => {
  installHttpBoundary({ timing: 'instant' })
})

/** A decision line as JSON, edited as a person would: any field, at any depth. */
// biome-ignore lint/suspicious/noExplicitAny: a hand edit reaches into any field of the line
type EditedLine = Record<string, any>

/** Rewrites the recorded decisions of a cassette in the store, as someone editing the file would. */
async function edit(file: string, change: (decision: EditedLine) => void): Promise<void> {
  const lines = store.files[file]!.trimEnd().split('\n')
  const edited = lines.map((line, i) => {
    if (i === 0) return line
    const decision = JSON.parse(line)
    change(decision)
    return JSON.stringify(decision)
  })
  await store.write(file, `${edited.join('\n')}\n`)
}

const client = (options: Partial<ConstructorParameters<typeof OpenAI>[0]> = {}) =>
  new OpenAI({ apiKey: 'sk-test-dummy', baseURL: provider.openaiBaseURL, maxRetries: 0, ...options })
const ask = (openai: OpenAI, stream = false) =>
  stream
    ? openai.chat.completions
        .create({ model: 'gpt-4o', messages: [{ role: 'user', content: 'hi' }], stream: true })
        .then(async (s) => {
          let text = ''
          for await (const chunk of s) text += chunk.choices[0]?.delta?.content ?? ''
          return text
        })
    : openai.chat.completions
        .create({ model: 'gpt-4o', messages: [{ role: 'user', content: 'hi' }] })
        .then((c) => c.choices[0]!.message.content)

describe('instant replay never waits a recorded time', () => {
  it('fails a recorded abort of ten hours at once, as the SDK saw it while recording', async () => {
    turn = { text: 'late', headersDelayMs: 400 }
    const rec = await runTaped(store, 'abort-10h.jsonl', 'auto', () => ask(client({ timeout: 100 })))
    expect(rec.error).toBeInstanceOf(OpenAI.APIConnectionTimeoutError)
    await edit('abort-10h.jsonl', (d) => {
      expect(d.err).toMatchObject({ name: 'AbortError' })
      d.ms = TEN_HOURS
    })
    // The SDK's default timeout (ten minutes) never fires in the test: the replay does not wait for it.
    const replay = await runTaped(store, 'abort-10h.jsonl', 'replay', () => ask(client()))
    expect(replay.error).toBeInstanceOf(OpenAI.APIConnectionTimeoutError)
    expect(replay.state).toMatchObject({ status: 'clean', replayed: 1 })
  })
})

describe("timing: 'recorded' waits no longer than the test can", () => {
  it('refuses a response whose headers came ten hours after the request, naming the decision', async () => {
    turn = { text: 'Hello.' }
    await runTaped(store, 'headers-10h.jsonl', 'auto', () => ask(client()))
    await edit('headers-10h.jsonl', (d) => {
      d.out.headersAt = TEN_HOURS
    })
    installHttpBoundary({ timing: 'recorded' })
    const replay = await runTaped(store, 'headers-10h.jsonl', 'replay', () => ask(client()), {
      testTimeoutMs: 5000,
    })
    expect(replay.error).toBeInstanceOf(OpenAI.APIConnectionError)
    expect(replay.failure?.message).toMatch(
      /^\[agent-tape\] Cannot replay decision #1 \(model request \(gpt-4o\)\) of headers-10h\.jsonl as recorded: with timing: 'recorded' it would wait 36,000,000 ms \(10 h\) \(the recording took 36,000,000 ms \(10 h\) to answer\), and the test has 4,\d{3} ms \(\d\.?\d? s\) left of its time limit\. Replay it with timing: 'instant' \(the default\) or a higher speed, or give the test a longer time limit; if the recorded time is wrong, re-record the test: rerecord\.$/,
    )
    expect((replay.failure as { code?: string }).code).toBe('ERR_TAPE_TIMING')
  })

  it('refuses a stream whose last event came too late, a recorded abort, and a speed that is not enough', async () => {
    turn = { text: ['one ', 'two'] }
    await runTaped(store, 'stream-late.jsonl', 'auto', () => ask(client(), true))
    await edit('stream-late.jsonl', (d) => {
      d.out.body.sse.at(-1).t = TEN_HOURS
    })
    installHttpBoundary({ timing: { speed: 100 } })
    const stream = await runTaped(store, 'stream-late.jsonl', 'replay', () => ask(client(), true), {
      testTimeoutMs: 5000,
    })
    expect(stream.failure?.message).toContain(
      'as recorded: with timing: { speed: 100 } it would wait 360,000 ms (6 min) (the recording took 36,000,000 ms (10 h) to answer)',
    )
    turn = { text: 'late', headersDelayMs: 400 }
    await runTaped(store, 'abort-late.jsonl', 'auto', () => ask(client({ timeout: 100 })))
    await edit('abort-late.jsonl', (d) => {
      d.ms = TEN_HOURS
    })
    installHttpBoundary({ timing: 'recorded' })
    const abort = await runTaped(store, 'abort-late.jsonl', 'replay', () => ask(client()), {
      testTimeoutMs: 5000,
    })
    expect(abort.failure?.message).toContain('(the recording failed after 36,000,000 ms (10 h))')
  })

  it('replays a recording that fits the test as recorded', async () => {
    turn = { text: 'Hello.', headersDelayMs: 60 }
    const rec = await runTaped(store, 'fits.jsonl', 'auto', () => ask(client()))
    installHttpBoundary({ timing: 'recorded' })
    const replay = await runTaped(store, 'fits.jsonl', 'replay', () => ask(client()), { testTimeoutMs: 5000 })
    expect(replay.error).toBeUndefined()
    expect(replay.result).toBe(rec.result)
    expect(replay.state.status).toBe('clean')
  })
})

/** A chat completion request through each client that agent-tape answers, returning the body read. */
const CLIENTS: Record<string, () => Promise<string>> = {
  fetch: async () => {
    const response = await fetch(`${provider.openaiBaseURL}/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'gpt-4o', messages: [{ role: 'user', content: 'hi' }] }),
    })
    return response.text()
  },
  'node:http': () =>
    new Promise((resolve, reject) => {
      const req = http.request(`${provider.openaiBaseURL}/chat/completions`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
      })
      req.on('error', reject)
      req.on('response', (res) => {
        let text = ''
        res.setEncoding('utf8')
        res.on('data', (chunk) => (text += chunk))
        res.on('end', () => resolve(text))
        res.on('error', reject)
        res.on('aborted', () => reject(new Error('aborted')))
      })
      req.end(JSON.stringify({ model: 'gpt-4o', messages: [{ role: 'user', content: 'hi' }] }))
    }),
  undici: async () => {
    const { body } = await undiciRequest(`${provider.openaiBaseURL}/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'gpt-4o', messages: [{ role: 'user', content: 'hi' }] }),
    })
    return body.text()
  },
  'node:http2': () =>
    new Promise((resolve, reject) => {
      const session = http2.connect(provider.http2Url!)
      session.on('error', reject)
      const stream = session.request({
        ':method': 'POST',
        ':path': '/v1/chat/completions',
        'content-type': 'application/json',
      })
      let text = ''
      stream.setEncoding('utf8')
      stream.on('data', (chunk) => (text += chunk))
      stream.on('end', () => {
        session.close()
        resolve(text)
      })
      stream.on('error', (error) => {
        session.close()
        reject(error)
      })
      stream.end(JSON.stringify({ model: 'gpt-4o', messages: [{ role: 'user', content: 'hi' }] }))
    }),
}

describe('a recorded content-length of 10 GB', () => {
  for (const [name, call] of Object.entries(CLIENTS)) {
    it(`fails ${name} with the report naming the decision, not a bare socket error`, async () => {
      turn = { text: 'Hello.' }
      const file = `length-${name}.jsonl`
      const rec = await runTaped(store, file, 'auto', call)
      expect(rec.error).toBeUndefined()
      expect(JSON.parse(rec.result!)).toMatchObject({ object: 'chat.completion' })
      await edit(file, (d) => {
        d.out.headers['content-length'] = '10737418240'
      })
      const replay = await runTaped(store, file, 'replay', call)
      const report = `[agent-tape] Cannot replay decision #1 (model request (gpt-4o)) of ${file}: its recorded response has a content-length header ("10737418240", 10 GB), which agent-tape never records`
      expect(replay.failure?.message).toContain(report)
      expect(isAgentTapeError(replay.failure)).toBe(true)
      // The client's own error carries the report (or has it as its cause).
      const error = replay.error as Error & { cause?: Error }
      expect(`${error?.message} ${error?.cause?.message ?? ''}`).toContain(report)
    })
  }
})
