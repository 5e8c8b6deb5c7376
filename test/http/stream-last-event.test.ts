import { createMemoryStore, parseCassette } from '@agent-tape/core'
import { type FakeProvider, startFakeProvider, type Turn } from '@agent-tape/fake-provider'
import { installHttpBoundary } from '@agent-tape/http'
import {
  ConverseStreamCommand,
  type ConverseStreamOutput,
  InvokeModelWithResponseStreamCommand,
} from '@aws-sdk/client-bedrock-runtime'
import { Ollama } from 'ollama'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { bedrockClient, MODEL_ID } from '../support/bedrock-agent.js'
import { runTaped } from '../support/tape-run.js'

// Clients that stop reading at an answer's last event, and never drain nor cancel the body: the
// `ollama` client at `done: true`, a hand-written fetch reader at `[DONE]`, an AWS SDK loop that
// breaks at `metadata`. The fake provider holds each response open after its last event, as a
// server or proxy slow to close does, so only the last event can tell the answer is complete.
const boundary = installHttpBoundary()
const store = createMemoryStore()
const HOLD_OPEN: Turn = {
  text: 'Tape, 1928.',
  holdOpenMs: 60_000,
  usage: { inputTokens: 9, outputTokens: 3 },
}
let provider: FakeProvider

beforeAll(async () => {
  provider = await startFakeProvider({ reply: () => HOLD_OPEN, seed: 'last-event' })
  boundary.addModelEndpoints(provider.url)
})
afterAll(() => provider.close())

/** Reads a body until `isLast` says the text so far holds the last event; then stops, as a client that has its answer. */
async function readUntil(response: Response, isLast: (text: string) => boolean): Promise<string> {
  const reader = response.body!.getReader()
  const decoder = new TextDecoder()
  let text = ''
  while (!isLast(text)) {
    const { done, value } = await reader.read()
    if (done) break
    text += decoder.decode(value, { stream: true })
  }
  return text
}

const post = (path: string, body: object) =>
  fetch(`${provider.url}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'anthropic-version': '2023-06-01' },
    body: JSON.stringify(body),
  })

/** Two model requests in a row, each by a client that stops at the last event. */
const CLIENTS: Record<string, { key: string; ask: (question: string) => Promise<unknown> }> = {
  'OpenAI chat (SSE, [DONE])': {
    key: 'sse',
    ask: async (question) =>
      readUntil(
        await post('/v1/chat/completions', {
          model: 'gpt-4o',
          stream: true,
          messages: [{ role: 'user', content: question }],
        }),
        (text) => text.includes('data: [DONE]\n\n'),
      ),
  },
  'Anthropic messages (SSE, message_stop)': {
    key: 'sse',
    ask: async (question) =>
      readUntil(
        await post('/v1/messages', {
          model: 'claude-sonnet-4-5',
          max_tokens: 64,
          stream: true,
          messages: [{ role: 'user', content: question }],
        }),
        (text) => /event: message_stop\ndata: [^\n]*\n\n/.test(text),
      ),
  },
  'OpenAI responses (SSE, response.completed)': {
    key: 'sse',
    ask: async (question) =>
      readUntil(await post('/v1/responses', { model: 'gpt-4o', stream: true, input: question }), (text) =>
        /event: response\.completed\ndata: [^\n]*\n\n/.test(text),
      ),
  },
  'Ollama chat (NDJSON, done: true), the ollama client': {
    key: 'ndjson',
    ask: async (question) => {
      const parts = []
      const ollama = new Ollama({ host: provider.url })
      for await (const part of await ollama.chat({
        model: 'qwen3',
        stream: true,
        messages: [{ role: 'user', content: question }],
      }))
        parts.push(part.message.content)
      return parts.join('')
    },
  },
  'Bedrock ConverseStream (event stream, metadata), the AWS SDK': {
    key: 'frames',
    ask: async (question) => {
      const answer = await bedrockClient(provider.url).send(
        new ConverseStreamCommand({
          modelId: MODEL_ID,
          messages: [{ role: 'user', content: [{ text: question }] }],
        }),
      )
      const events: ConverseStreamOutput[] = []
      for await (const event of answer.stream!) {
        events.push(event)
        if (event.metadata) break
      }
      return events
    },
  },
  'Bedrock InvokeModelWithResponseStream (event stream, the chunk with the metrics), the AWS SDK': {
    key: 'frames',
    ask: async (question) => {
      const body = JSON.stringify({
        anthropic_version: 'bedrock-2023-05-31',
        max_tokens: 64,
        messages: [{ role: 'user', content: question }],
      })
      const answer = await bedrockClient(provider.url).send(
        new InvokeModelWithResponseStreamCommand({ modelId: MODEL_ID, body }),
      )
      const chunks: Record<string, unknown>[] = []
      for await (const part of answer.body!) {
        chunks.push(JSON.parse(new TextDecoder().decode(part.chunk?.bytes)))
        if (chunks.at(-1)!['amazon-bedrock-invocationMetrics']) break
      }
      return chunks
    },
  },
}

describe('a request is recorded as complete at its answer’s last event, not when the socket is drained', () => {
  for (const [name, client] of Object.entries(CLIENTS)) {
    it(name, async () => {
      const file = `${name}.jsonl`
      const run = async () => [await client.ask('When?'), await client.ask('Who?')]
      // Waiting for the held-open bodies would fail the write after a second.
      const rec = await runTaped(store, file, 'auto', run, { pendingTimeoutMs: 1000 })
      expect(rec.error).toBeUndefined()
      expect(rec.state).toMatchObject({ action: 'record', recorded: 2, written: true, warnings: [] })
      const cassette = parseCassette(store.files[file]!, file)
      expect(cassette.header.overlapped).toBeUndefined()
      for (const decision of cassette.decisions) {
        const body = (decision.out as { body: Record<string, unknown[]> }).body
        // The stream ends with its last event: no error after it, nothing cut.
        expect(Object.keys(body)).toEqual([client.key])
      }
      const connections = provider.connections
      const replay = await runTaped(store, file, 'replay', run)
      expect(replay.state).toMatchObject({ status: 'clean', replayed: 2 })
      expect(replay.result).toEqual(rec.result)
      expect(provider.connections).toBe(connections)
    })
  }
})
