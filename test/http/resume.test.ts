// A request of a tape in `resume` mode, decided step by step: replayed while it matches (with a
// placeholder key too), refused at the first miss when it would be recorded without its key, and
// sent to another model when the boundary says so, its decision keeping the request as made.
import { createMemoryStore, openTape, parseCassette, runWithTape } from '@agent-tape/core'
import { type FakeProvider, startFakeProvider } from '@agent-tape/fake-provider'
import { type BoundaryConfig, handleRequest } from '@agent-tape/http/internal'
import { afterAll, beforeAll, expect, it } from 'vitest'

const URL = 'https://api.openai.com/v1/chat/completions'
const PATH = 'resume.jsonl'
const PLACEHOLDER = 'Bearer replay-placeholder-key-for-OPENAI_API_KEY'
const config: BoundaryConfig = { modelEndpoints: [], timing: 'instant' }
let fake: FakeProvider

beforeAll(async () => {
  fake = await startFakeProvider({ reply: ({ body }) => ({ text: `hi from ${String(body.model)}` }) })
})
afterAll(() => fake.close())

/**
 * The provider's API, served by the fake provider on loopback: `perform` sends a request there as
 * the boundary would send it to the network, and remembers what it sent.
 */
function provider() {
  const sent: { authorization: string | null; model: unknown }[] = []
  const perform = async (request: Request) => {
    const body = await request.clone().json()
    sent.push({ authorization: request.headers.get('authorization'), model: body.model })
    const { pathname } = new globalThis.URL(request.url)
    return fetch(`${fake.url}${pathname}`, {
      method: request.method,
      headers: request.headers,
      body: await request.text(),
    })
  }
  return { sent, perform }
}

function chat(content: string, authorization: string): Request {
  return new Request(URL, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization },
    body: JSON.stringify({ model: 'gpt-4o', messages: [{ role: 'user', content }] }),
  })
}

/** Two model requests in one tape of `mode`, with the key `authorization`; what each got back. */
async function run(
  store: ReturnType<typeof createMemoryStore>,
  mode: 'update' | 'resume',
  second: string,
  authorization: string,
  boundary: BoundaryConfig = config,
) {
  const { sent, perform } = provider()
  const tape = await openTape({ id: 't', cassettePath: PATH, store, mode, env: {} })
  const statuses = await runWithTape(tape, async () => {
    const statuses: number[] = []
    for (const content of ['first', second]) {
      const outcome = await handleRequest(chat(content, authorization), boundary, perform)
      statuses.push(outcome.type === 'respond' ? outcome.response.status : -1)
      if (outcome.type === 'respond') await outcome.response.text()
    }
    return statuses
  })
  const state = await tape.finish()
  return { sent, statuses, state, failure: tape.failure() }
}

async function recorded() {
  const store = createMemoryStore()
  const first = await run(store, 'update', 'second', 'Bearer sk-test-dummy')
  expect(first.statuses).toEqual([200, 200])
  return store
}

it('replays the matching request with a placeholder key, and refuses the first miss that would be recorded without one, writing nothing', async () => {
  const store = await recorded()
  const before = store.files[PATH]
  const resumed = await run(store, 'resume', 'second, changed', PLACEHOLDER)
  expect(resumed.sent).toEqual([])
  expect(resumed.statuses).toEqual([200, 400])
  expect(resumed.failure).toMatchObject({ code: 'ERR_TAPE_NO_KEY' })
  expect(resumed.failure?.message).toContain(
    'Cannot record test "t": its request to api.openai.com would carry no API key: OPENAI_API_KEY is not set, so agent-tape gave it a placeholder for the tapes that replay from their cassettes, and this tape records (the run no longer matches resume.jsonl from this request on); the request was not sent, and nothing is written.',
  )
  expect(resumed.state).toMatchObject({ written: false, writeSkipped: 'refused' })
  expect(store.files[PATH]).toBe(before)
})

it('sends the live requests to the boundary’s live model, and records them as the caller made them', async () => {
  const store = await recorded()
  const resumed = await run(store, 'resume', 'second, changed', 'Bearer sk-test-dummy', {
    ...config,
    liveModel: 'gpt-test-other',
  })
  expect(resumed.statuses).toEqual([200, 200])
  expect(resumed.sent).toEqual([{ authorization: 'Bearer sk-test-dummy', model: 'gpt-test-other' }])
  const cassette = parseCassette(store.files[PATH]!, PATH)
  expect(cassette.header.rerecordedFrom).toEqual({ seq: 2, step: 2, kept: 1 })
  const second = cassette.decisions[1]!
  expect((second.in as { body: { model: string } }).body.model).toBe('gpt-4o')
  expect(JSON.stringify(second.out)).toContain('hi from gpt-test-other')
})
