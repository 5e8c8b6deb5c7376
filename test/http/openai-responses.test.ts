import { createMemoryStore } from '@agent-tape/core'
import { type FakeProvider, startFakeProvider } from '@agent-tape/fake-provider'
import { installHttpBoundary } from '@agent-tape/http'
import OpenAI from 'openai'
import { afterAll, beforeAll, expect, it } from 'vitest'
import { RESEARCH_TOOLS, researchScript } from '../support/scripts.js'
import { runTaped } from '../support/tape-run.js'

// What every client of every API gets alike is in test/providers/; here, what the Responses API
// keys besides the prompt: a tool's schema.
const boundary = installHttpBoundary()
const store = createMemoryStore()
let provider: FakeProvider
let client: OpenAI

beforeAll(async () => {
  provider = await startFakeProvider({ reply: (req) => researchScript(req.body), seed: 'responses' })
  boundary.addModelEndpoints(provider.url)
  client = new OpenAI({ apiKey: 'sk-test-dummy', baseURL: provider.openaiBaseURL })
})
afterAll(() => provider.close())

const TOOLS: OpenAI.Responses.FunctionTool[] = [
  {
    type: 'function',
    name: 'search',
    strict: false,
    parameters: { type: 'object', properties: { query: { type: 'string' } } },
  },
  {
    type: 'function',
    name: 'fetch_page',
    strict: false,
    parameters: { type: 'object', properties: { url: { type: 'string' } } },
  },
]

/** A Responses-API agent that streams every turn and keeps the event names it saw. */
async function runAgent(question: string) {
  const input: OpenAI.Responses.ResponseInput = [{ role: 'user', content: question }]
  const events: string[] = []
  for (let step = 0; step < 5; step++) {
    const stream = client.responses.stream({ model: 'gpt-4.1', input, tools: TOOLS })
    stream.on('event', (e) => events.push(e.type))
    const response = await stream.finalResponse()
    const calls = response.output.flatMap((o) =>
      o.type === 'function_call' ? [o as OpenAI.Responses.ResponseFunctionToolCall] : [],
    )
    if (calls.length === 0) return { text: response.output_text, events, usage: response.usage }
    for (const call of calls) {
      input.push({ type: 'function_call', call_id: call.call_id, name: call.name, arguments: call.arguments })
      const run = (RESEARCH_TOOLS as Record<string, (a: never) => string>)[call.name]!
      input.push({
        type: 'function_call_output',
        call_id: call.call_id,
        output: run(JSON.parse(call.arguments) as never),
      })
    }
  }
  throw new Error('step budget exhausted')
}

it('a changed tool schema misses at step 1 with the field that changed', async () => {
  const rec = await runTaped(store, 'responses.jsonl', 'auto', () => runAgent('When was tape invented?'))
  expect(rec.result?.text).toBe('Magnetic tape recording was invented in 1928.')
  TOOLS[1]!.description = 'Search the web' // fetch_page: first once tools are sorted by name
  try {
    const miss = await runTaped(store, 'responses.jsonl', 'replay', () => runAgent('When was tape invented?'))
    expect(miss.failure?.message).toContain('Replay miss at step 1, model request (gpt-4.1)')
    expect(miss.failure?.message).toContain('body.tools[0].description: (absent) → "Search the web"')
  } finally {
    delete TOOLS[1]!.description
  }
})
