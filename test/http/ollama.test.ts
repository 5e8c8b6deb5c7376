import { createMemoryStore, parseCassette } from '@agent-tape/core'
import { type FakeProvider, startFakeProvider } from '@agent-tape/fake-provider'
import { installHttpBoundary } from '@agent-tape/http'
import { readModelAnswer, readModelRequest } from '@agent-tape/http/internal'
import { type ChatResponse, type Message, Ollama, type Tool } from 'ollama'
import { afterAll, beforeAll, expect, it } from 'vitest'
import { RESEARCH_TOOLS, researchScript } from '../support/scripts.js'
import { runTaped } from '../support/tape-run.js'

// A local Ollama, declared as a user declares it: modelEndpoints: ['http://127.0.0.1:11434'].
// What every client of every API gets alike is in test/providers/; here, what Ollama does
// besides: keep_alive left out of the key, /api/generate, Go's escapes, a word-level diff.
const boundary = installHttpBoundary()
const store = createMemoryStore()
// Sent only to ollama.com by the client; here in a header, as a proxy in front of Ollama wants it.
const API_KEY = `ollama-${'K3yForTests'.repeat(4)}`
let provider: FakeProvider
let ollama: Ollama

beforeAll(async () => {
  provider = await startFakeProvider({ reply: (req) => researchScript(req.body), seed: 'ollama' })
  boundary.addModelEndpoints(provider.url)
  ollama = new Ollama({ host: provider.url, headers: { Authorization: `Bearer ${API_KEY}` } })
})
afterAll(() => provider.close())

const TOOLS: Tool[] = [
  {
    type: 'function',
    function: {
      name: 'search',
      description: 'Web search',
      parameters: { type: 'object', properties: { query: { type: 'string' } }, required: ['query'] },
    },
  },
  {
    type: 'function',
    function: {
      name: 'fetch_page',
      description: 'Fetch a page',
      parameters: { type: 'object', properties: { url: { type: 'string' } }, required: ['url'] },
    },
  },
]

/** A research agent on /api/chat: call the tools the model asks for until it answers. */
async function research(client: Ollama, question: string, stream: boolean, keepAlive = '5m') {
  const messages: Message[] = [{ role: 'user', content: question }]
  const answers: (ChatResponse | ChatResponse[])[] = []
  for (let step = 0; step < 5; step++) {
    const request = {
      model: 'qwen3',
      messages,
      tools: TOOLS,
      keep_alive: keepAlive,
      options: { temperature: 0 },
    }
    let message: Message
    if (stream) {
      const parts: ChatResponse[] = []
      for await (const part of await client.chat({ ...request, stream: true })) parts.push(part)
      answers.push(parts)
      message = {
        role: 'assistant',
        content: parts.map((p) => p.message.content).join(''),
        tool_calls: parts.flatMap((p) => p.message.tool_calls ?? []),
      }
    } else {
      const response = await client.chat({ ...request, stream: false })
      answers.push(response)
      message = response.message
    }
    messages.push(message)
    if (!message.tool_calls?.length) return { text: message.content, answers }
    for (const call of message.tool_calls) {
      const run = RESEARCH_TOOLS[call.function.name as keyof typeof RESEARCH_TOOLS]
      messages.push({
        role: 'tool',
        content: run(call.function.arguments as never),
        tool_name: call.function.name,
      })
    }
  }
  throw new Error('no answer after 5 steps')
}

const QUESTION = 'When was magnetic tape invented?'

it.each([
  ['JSON', false],
  ['streamed', true],
])(
  'keys a %s chat by its options and stream, not keep_alive: a run that keeps the model loaded longer replays',
  async (name, stream) => {
    const file = `chat-${name}.jsonl`
    const rec = await runTaped(store, file, 'auto', () => research(ollama, QUESTION, stream))
    expect(rec.state).toMatchObject({ recorded: 3, warnings: [] })
    // The client stops reading at `done: true`: each step is complete there, none overlaps the next.
    expect(parseCassette(store.files[file]!, file).header.overlapped).toBeUndefined()
    const [first] = parseCassette(store.files[file]!, file).decisions
    expect(first!.in).toMatchObject({ body: { options: { temperature: 0 }, stream } })
    expect(JSON.stringify(first!.in)).not.toContain('keep_alive')
    expect(Object.keys((first!.out as { body: object }).body)).toEqual([stream ? 'ndjson' : 'json'])
    const replay = await runTaped(store, file, 'replay', () => research(ollama, QUESTION, stream, '30m'))
    expect(replay.state).toMatchObject({ status: 'clean', replayed: 3 })
    expect(replay.result?.text).toBe(rec.result?.text)
  },
)

it('a prompt edit misses at step 1 with the word-level diff, and the client surfaces the report at once', async () => {
  const prompt = (audience: string) =>
    `You research the history of recording technology for ${audience}. Answer in one sentence, cite the year, and name the inventor. ${QUESTION}`
  const rec = await runTaped(store, 'prompt.jsonl', 'auto', () =>
    research(ollama, prompt('a museum catalogue'), false),
  )
  expect(rec.state.recorded).toBe(3)
  const requests = provider.requests.length
  const miss = await runTaped(store, 'prompt.jsonl', 'replay', () =>
    research(ollama, prompt('a school textbook'), false),
  )
  expect(provider.requests.length).toBe(requests)
  expect(miss.error).toMatchObject({ name: 'ResponseError', status_code: 400 })
  expect((miss.error as Error).message).toContain('Replay miss at step 1, model request (qwen3)')
  expect(miss.failure?.message.replace(/llm:[0-9a-f]{16}/g, 'llm:<key>')).toBe(
    [
      '[agent-tape] Replay miss at step 1, model request (qwen3): the run asked for a decision that was never recorded. If the change is intended, re-record this test: rerecord.',
      '',
      '  cassette  prompt.jsonl',
      '  key       llm:<key>',
      '  progress  diverged at decision 1 of 3 (0 replayed before it)',
      '  nearest   #1 llm:<key>, model request (qwen3) at step 1',
      '',
      '  Input changed (recorded → now):',
      '    body.messages[0].content: "…technology for a museum catalogue. Answer in one…" → "…technology for a school textbook. Answer in one…"',
    ].join('\n'),
  )
})

it('records /api/generate, JSON and streamed, and replays it; text Go escaped is read back', async () => {
  const generate = await startFakeProvider({
    reply: [
      { text: 'Use <b> & <i>.', usage: { inputTokens: 12, outputTokens: 6 } },
      { text: ['Use ', '<b> ', '& ', '<i>.'], usage: { inputTokens: 12, outputTokens: 6 } },
    ],
  })
  boundary.addModelEndpoints(generate.url)
  const client = new Ollama({ host: generate.url })
  const run = async () => {
    const whole = await client.generate({ model: 'qwen3', prompt: 'Bold and italic tags?' })
    const parts = []
    for await (const part of await client.generate({
      model: 'qwen3',
      prompt: 'Bold and italic tags?',
      stream: true,
    }))
      parts.push(part)
    return { whole, parts }
  }
  const rec = await runTaped(store, 'generate.jsonl', 'auto', run)
  await generate.close()
  expect(rec.result?.whole.response).toBe('Use <b> & <i>.')
  const replay = await runTaped(store, 'generate.jsonl', 'replay', run)
  expect(replay.state).toMatchObject({ status: 'clean', replayed: 2 })
  expect(replay.result).toEqual(rec.result)
  const decisions = parseCassette(store.files['generate.jsonl']!, 'generate.jsonl').decisions
  expect(decisions.map((d) => d.in)).toMatchObject([
    { api: 'ollama', path: '/api/generate', body: { stream: false } },
    { api: 'ollama', path: '/api/generate', body: { stream: true } },
  ])
  // The bytes Go wrote do not come back from JSON.stringify: kept as text, read as JSON.
  expect((decisions[0]!.out as { body: object }).body).toHaveProperty('text')
  for (const d of decisions) {
    expect(readModelAnswer(d.in, d.out)).toMatchObject({
      text: 'Use <b> & <i>.',
      finishReason: 'stop',
      usage: { input: 12, output: 6 },
    })
    expect(readModelRequest(d.in)).toMatchObject({ last: { role: 'user', text: 'Bold and italic tags?' } })
  }
})
