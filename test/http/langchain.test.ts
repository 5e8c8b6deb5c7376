import { createMemoryStore } from '@agent-tape/core'
import { type FakeProvider, startFakeProvider } from '@agent-tape/fake-provider'
import { installHttpBoundary } from '@agent-tape/http'
import { type AIMessageChunk, type BaseMessage, HumanMessage, ToolMessage } from '@langchain/core/messages'
import { ChatOpenAI } from '@langchain/openai'
import { afterAll, beforeAll, expect, it } from 'vitest'
import { weatherScript } from '../support/openai-agent.js'
import { runTaped } from '../support/tape-run.js'

const boundary = installHttpBoundary()
const store = createMemoryStore()
let provider: FakeProvider

beforeAll(async () => {
  provider = await startFakeProvider({ reply: (req) => weatherScript(req.body as never), seed: 'langchain' })
  boundary.addModelEndpoints(provider.url)
})
afterAll(() => provider.close())

const weather = {
  type: 'function' as const,
  function: { name: 'get_weather', parameters: { type: 'object', properties: { city: { type: 'string' } } } },
}
const time = {
  type: 'function' as const,
  function: { name: 'get_time', parameters: { type: 'object', properties: { city: { type: 'string' } } } },
}

/** A LangChain tool loop on ChatOpenAI, streaming each turn and concatenating the chunks. */
async function runLangChainAgent(question: string) {
  const model = new ChatOpenAI({
    model: 'gpt-4o',
    apiKey: 'sk-test-dummy',
    streaming: true,
    configuration: { baseURL: provider.openaiBaseURL },
  }).bindTools([weather, time])
  const messages: BaseMessage[] = [new HumanMessage(question)]
  for (let step = 0; step < 5; step++) {
    let reply: AIMessageChunk | undefined
    for await (const chunk of await model.stream(messages)) reply = reply ? reply.concat(chunk) : chunk
    if (!reply) throw new Error('empty stream')
    messages.push(reply)
    if (!reply.tool_calls?.length) return String(reply.content)
    for (const call of reply.tool_calls) {
      const city = String(call.args.city)
      const content = call.name === 'get_weather' ? `${city}: 18°C, light rain` : `${city}: 14:05`
      messages.push(new ToolMessage({ content, tool_call_id: call.id ?? '' }))
    }
  }
  throw new Error('step budget exhausted')
}

it('records a LangChain ChatOpenAI tool loop and replays it with zero connections', async () => {
  const rec = await runTaped(store, 'langchain.jsonl', 'auto', () =>
    runLangChainAgent('Weather and time in Paris?'),
  )
  expect(rec.error).toBeUndefined()
  expect(rec.result).toBe('It is 14:05 in Paris and 18°C with light rain.')
  expect(rec.state.recorded).toBe(3)
  const connections = provider.connections
  const replay = await runTaped(store, 'langchain.jsonl', 'replay', () =>
    runLangChainAgent('Weather and time in Paris?'),
  )
  expect(provider.connections).toBe(connections)
  expect(replay.result).toBe(rec.result)
  expect(replay.state).toMatchObject({ status: 'clean', replayed: 3 })
  const miss = await runTaped(store, 'langchain.jsonl', 'replay', () =>
    runLangChainAgent('Weather in Paris?'),
  )
  expect(miss.failure?.message).toContain('"Weather and time in Paris?" → "Weather in Paris?"')
})
