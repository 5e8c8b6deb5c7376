import {
  createMemoryStore,
  isAgentTapeError,
  isSecretLeakError,
  openTape,
  parseCassette,
  runWithTape,
} from '@agent-tape/core'
import { type FakeProvider, startFakeProvider } from '@agent-tape/fake-provider'
import { installHttpBoundary } from '@agent-tape/http'
import { MODEL_CODECS, readModelAnswer, readModelRequest, recordedUsage } from '@agent-tape/http/internal'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { providerRowsOf } from '../support/readme-section.js'
import { runTaped } from '../support/tape-run.js'
import { CLIENTS } from './clients.js'
import { ANSWER, BREAK, CUT, contractScript, EDITED, LEAK, QUESTION, REFUSE, SECRET } from './script.js'

// What every model API's clients get alike, written once: a tool loop recorded and replayed with
// no connection (JSON and streamed), a prompt edit's miss, credentials and secrets kept out, HTTP
// and stream failures replayed as the SDK saw them, a server nobody declared refused. What
// differs between the clients comes from their description in clients.ts.

const boundary = installHttpBoundary()
/** A server that answers like every provider and that nobody declares: no request may reach it. */
let undeclared: FakeProvider

beforeAll(async () => {
  undeclared = await startFakeProvider({ reply: () => ({ text: 'Hello.' }) })
})
afterAll(async () => {
  expect(undeclared.requests).toEqual([])
  await undeclared.close()
})

it('has a client for every codec', () => {
  expect(new Set(CLIENTS.map((c) => c.api))).toEqual(new Set(MODEL_CODECS.map((c) => c.name)))
})

it("has a row for every codec in the README's table of providers", () => {
  for (const codec of MODEL_CODECS) expect(providerRowsOf(codec.name), codec.name).toHaveLength(1)
})

/**
 * An error as a caller compares it: its class, name and message, and the HTTP status and
 * request id wherever the SDK keeps them.
 */
function errorShape(error: unknown) {
  const e = error as Error & {
    status?: number
    statusCode?: number
    status_code?: number
    requestID?: string | null
    $metadata?: { httpStatusCode?: number; requestId?: string }
  }
  return {
    class: e?.constructor?.name,
    name: e?.name,
    message: e?.message,
    status: e?.status ?? e?.statusCode ?? e?.status_code ?? e?.$metadata?.httpStatusCode,
    requestId: e?.requestID ?? e?.$metadata?.requestId,
  }
}

const literal = (text: string) => text.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')

describe.each(CLIENTS)('$name', (client) => {
  const store = createMemoryStore()
  let provider: FakeProvider
  let undeclare: () => void
  const decisionsOf = (file: string) => parseCassette(store.files[file]!, file).decisions
  /** What the SDK handed the agent while recording, JSON and streamed. */
  const recorded = new Map<boolean, unknown[]>()

  beforeAll(async () => {
    provider = await startFakeProvider({
      reply: (request) => contractScript(request.body),
      seed: client.name,
    })
    undeclare = boundary.addModelEndpoints(client.endpoint(provider.url))
  })
  afterAll(async () => {
    undeclare()
    await provider.close()
  })

  /** Runs the research agent on `question` in a tape; what the SDK handed it and the error it threw. */
  const research =
    (question: string, stream: boolean, url = provider.url) =>
    async () => {
      const received: unknown[] = []
      try {
        return { received, answer: await client.research(url, question, { stream, received }) }
      } catch (error) {
        return { received, error: errorShape(error) }
      }
    }

  describe.each([
    ['JSON', false],
    ['streamed', true],
  ])('%s', (format, stream) => {
    const file = `research-${format}.jsonl`

    it('records a three-step tool loop, one decision per request, keyed by the codec and read back', async () => {
      const rec = await runTaped(store, file, 'auto', research(QUESTION, stream))
      expect(rec.result?.error).toBeUndefined()
      expect(rec.result?.answer).toBe(ANSWER)
      expect(rec.state).toMatchObject({ action: 'record', recorded: 3, written: true, warnings: [] })
      recorded.set(stream, rec.result!.received)
      const decisions = decisionsOf(file)
      expect(decisions.map((d) => d.kind)).toEqual(['llm', 'llm', 'llm'])
      const [first, , last] = decisions
      expect(first!.in).toMatchObject({ api: client.api, method: 'POST', path: client.path(stream) })
      expect(readModelRequest(first!.in)).toMatchObject({ model: client.model, messages: 1, tools: 2 })
      expect(readModelAnswer(first!.in, first!.out)).toMatchObject({
        status: 200,
        streamed: stream,
        toolCalls: [{ name: 'search', arguments: '{"query":"tape recorders history"}' }],
      })
      expect(readModelAnswer(last!.in, last!.out)).toMatchObject({
        status: 200,
        streamed: stream,
        text: ANSWER,
        toolCalls: [],
        usage: { input: 300, output: 9 },
      })
      expect(recordedUsage(last!.in, last!.out)).toEqual({ input: 300, output: 9 })
    })

    it('replays it with no connection, handing the SDK the same answers', async () => {
      const connections = provider.connections
      const replay = await runTaped(store, file, 'replay', research(QUESTION, stream))
      expect(provider.connections).toBe(connections)
      expect(replay.state).toMatchObject({ status: 'clean', replayed: 3, unused: 0 })
      expect(replay.result?.answer).toBe(ANSWER)
      expect(replay.result?.received).toEqual(recorded.get(stream))
    })

    it('misses a prompt edit at step 1 with the field diff, which the SDK surfaces at once', async () => {
      const requests = provider.requests.length
      const miss = await runTaped(store, file, 'replay', research(EDITED, stream))
      expect(provider.requests.length).toBe(requests)
      // One miss: the SDK took the answer as final and did not retry it.
      expect(miss.state).toMatchObject({ status: 'diverged', missed: 1 })
      expect(miss.failure?.message).toContain(`Replay miss at step 1, model request (${client.model})`)
      expect(miss.failure?.message).toContain(`${client.questionField}: "${QUESTION}" → "${EDITED}"`)
      expect(miss.result?.error).toMatchObject({
        status: 400,
        message: expect.stringContaining('Replay miss at step 1'),
      })
    })

    it('keeps the credentials the client sent, its other headers and the host out of the cassette', () => {
      const sent = JSON.stringify(provider.requests.map((r) => [r.headers, r.search]))
      const text = store.files[file]!
      for (const credential of client.credentials) {
        expect(sent).toContain(credential)
        expect(text).not.toContain(credential)
      }
      // A key has no host: the recording replays against any server of the API.
      expect(text).not.toContain(new URL(provider.url).host)
      const behaviour = MODEL_CODECS.find((c) => c.name === client.api)!.behaviourHeaders
      for (const decision of decisionsOf(file)) {
        const headers = Object.keys((decision.in as { headers?: object }).headers ?? {})
        expect(headers.filter((name) => !behaviour.includes(name))).toEqual([])
      }
    })

    it('refuses to write a secret the model answered, and says where it is without printing it', async () => {
      const tape = await openTape({
        id: 'leak',
        cassettePath: `leak-${format}.jsonl`,
        store,
        mode: 'auto',
        env: {},
      })
      const run = await runWithTape(tape, research(LEAK, stream))
      expect(run.answer).toContain(SECRET)
      const error = await tape.finish().then(
        () => undefined,
        (e: unknown) => e,
      )
      expect(isSecretLeakError(error)).toBe(true)
      // Split between two events, the key is found in the answer reassembled.
      expect((error as Error).message).toMatch(
        stream ? /out\.body\S* \(reassembled from \d+ events\)/ : /out\.body/,
      )
      expect((error as Error).message).not.toContain(SECRET.slice(8))
      expect(store.files[`leak-${format}.jsonl`]).toBeUndefined()
    })

    it('replays an HTTP error as the same SDK error', async () => {
      const errorFile = `error-${format}.jsonl`
      const rec = await runTaped(store, errorFile, 'auto', research(REFUSE, stream))
      expect(rec.result?.error).toMatchObject({ status: 403 })
      const connections = provider.connections
      const replay = await runTaped(store, errorFile, 'replay', research(REFUSE, stream))
      expect(provider.connections).toBe(connections)
      expect(replay.state).toMatchObject({ status: 'clean', replayed: 1 })
      expect(replay.result).toEqual(rec.result)
      const [decision] = decisionsOf(errorFile)
      expect(readModelAnswer(decision!.in, decision!.out)?.error).toMatch(/^403 .*Not allowed\./)
    })

    it('is refused at a server nobody declared, naming the base URL to declare, sending nothing', async () => {
      const cassette = `undeclared-${format}.jsonl`
      const run = await runTaped(store, cassette, 'auto', research(QUESTION, stream, undeclared.url))
      const base = client.endpoint(undeclared.url)
      expect(isAgentTapeError(run.failure) && run.failure.code).toBe('ERR_TAPE_CONFIG')
      expect(run.failure?.message).toMatch(
        new RegExp(
          `^\\[agent-tape\\] Refused a model call to ${literal(undeclared.url)}${literal(client.path(stream))}\\S* \\(${client.api}\\): `,
        ),
      )
      expect(run.failure?.message).toContain(`(modelEndpoints: ['${base}'])`)
      expect(run.result?.error).toMatchObject({ status: 400 })
      expect(run.state.divergences).toHaveLength(1)
    })
  })

  describe.each([
    ['an in-band error', BREAK],
    ['a cut connection', CUT],
  ])('a stream ended by %s', (_, question) => {
    it('replays as the same failure, after the same events', async () => {
      const file = `stream-${question}.jsonl`
      const rec = await runTaped(store, file, 'auto', research(question, true))
      const connections = provider.connections
      const replay = await runTaped(store, file, 'replay', research(question, true))
      expect(provider.connections).toBe(connections)
      expect(replay.state).toMatchObject({ status: 'clean', replayed: 1 })
      expect(replay.result).toEqual(rec.result)
      const [decision] = decisionsOf(file)
      const answer = readModelAnswer(decision!.in, decision!.out)
      expect(answer).toMatchObject({ streamed: true, error: expect.any(String) })
      if (question === BREAK) expect(answer?.error).toMatch(/^stream error: .*Try again later\./)
    })
  })
})
