import { createMemoryStore, parseCassette } from '@agent-tape/core'
import { type FakeProvider, startFakeProvider } from '@agent-tape/fake-provider'
import { installHttpBoundary } from '@agent-tape/http'
import { readModelAnswer } from '@agent-tape/http/internal'
import { createAmazonBedrock } from '@ai-sdk/amazon-bedrock'
import { createBedrockAnthropic } from '@ai-sdk/amazon-bedrock/anthropic'
import { APICallError, generateText, type LanguageModel, stepCountIs, streamText } from 'ai'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { AI_RESEARCH_TOOLS } from '../support/ai-tools.js'
import { AWS_CREDENTIALS, MODEL_ID } from '../support/bedrock-agent.js'
import { researchScript } from '../support/scripts.js'
import { runTaped } from '../support/tape-run.js'

// The Claude provider warns that it does not know the model id.
;(globalThis as { AI_SDK_LOG_WARNINGS?: boolean }).AI_SDK_LOG_WARNINGS = false

const boundary = installHttpBoundary()
const store = createMemoryStore()
let provider: FakeProvider

beforeAll(async () => {
  provider = await startFakeProvider({ reply: (req) => researchScript(req.body), seed: 'bedrock-ai' })
  boundary.addModelEndpoints(provider.url)
})
afterAll(() => provider.close())

const settings = (baseURL: string) => ({ region: 'us-east-1', baseURL, ...AWS_CREDENTIALS })
const tools = AI_RESEARCH_TOOLS

const models: [string, string, (baseURL: string) => LanguageModel][] = [
  ['Converse', 'bedrock-converse', (url) => createAmazonBedrock(settings(url))(MODEL_ID)],
  ['InvokeModel with Claude', 'bedrock-invoke', (url) => createBedrockAnthropic(settings(url))(MODEL_ID)],
]

describe.each(models)('Vercel ai over Bedrock %s', (name, api, model) => {
  const generate =
    (prompt: string, url = provider.url) =>
    async () => {
      const result = await generateText({
        model: model(url),
        tools,
        stopWhen: stepCountIs(5),
        prompt,
        maxOutputTokens: 512,
      })
      return {
        text: result.text,
        steps: result.steps.map((s) => ({ calls: s.toolCalls, finish: s.finishReason, usage: s.usage })),
        usage: result.totalUsage,
      }
    }
  const stream =
    (prompt: string, url = provider.url) =>
    async () => {
      const errors: unknown[] = []
      const result = streamText({
        model: model(url),
        tools,
        stopWhen: stepCountIs(5),
        prompt,
        onError: ({ error }) => {
          errors.push(error)
        },
      })
      const parts: unknown[] = []
      for await (const part of result.fullStream) {
        if (part.type === 'text-delta') parts.push({ type: part.type, text: part.text })
        if (part.type === 'tool-call') parts.push({ type: part.type, name: part.toolName, input: part.input })
        if (part.type === 'finish') parts.push({ type: part.type, usage: part.totalUsage })
      }
      // Without output (a miss, an exception) the text rejects: the error parts say why.
      const text = await Promise.resolve(result.text).catch((e: Error) => e.name)
      return { text, parts, errors }
    }

  it('generateText: records three steps and replays them with zero connections, keeping no credential', async () => {
    const file = `${name}-generate.jsonl`
    const rec = await runTaped(store, file, 'auto', generate('When was tape invented?'))
    expect(rec.error).toBeUndefined()
    expect(rec.result?.text).toBe('Magnetic tape recording was invented in 1928.')
    expect(rec.result?.steps).toHaveLength(3)
    const connections = provider.connections
    const replay = await runTaped(store, file, 'replay', generate('When was tape invented?'))
    expect(provider.connections).toBe(connections)
    expect(replay.result).toEqual(rec.result)
    expect(replay.state).toMatchObject({ status: 'clean', replayed: 3 })
    const text = store.files[file]!
    for (const secret of Object.values(AWS_CREDENTIALS)) expect(text).not.toContain(secret)
    expect(text).not.toMatch(/authorization|x-amz-date|x-amz-security-token|AWS4-HMAC-SHA256/i)
    const decisions = parseCassette(text, file).decisions.filter((d) => d.kind === 'llm')
    expect(decisions.map((d) => (d.in as { api: string }).api)).toEqual([api, api, api])
    expect(readModelAnswer(decisions[2]!.in, decisions[2]!.out)?.usage).toEqual({ input: 300, output: 9 })
  })

  it('streamText: replays the same parts, and a prompt edit misses with its diff and no retry', async () => {
    const file = `${name}-stream.jsonl`
    const rec = await runTaped(store, file, 'auto', stream('When was tape invented?'))
    expect(rec.result?.text).toBe('Magnetic tape recording was invented in 1928.')
    expect(rec.result?.errors).toEqual([])
    const connections = provider.connections
    const replay = await runTaped(store, file, 'replay', stream('When was tape invented?'))
    expect(replay.result).toEqual(rec.result)
    const miss = await runTaped(store, file, 'replay', stream('When was the tape invented?'))
    expect(provider.connections).toBe(connections)
    expect(miss.state.status).toBe('diverged')
    expect(miss.failure?.message).toContain(`Replay miss at step 1, model request (${MODEL_ID})`)
    expect(miss.failure?.message).toContain('"When was tape invented?" → "When was the tape invented?"')
    // The SDK surfaced the miss at once: a 400 it does not retry.
    const [error] = miss.result?.errors ?? []
    expect(APICallError.isInstance(error)).toBe(true)
    expect(error).toMatchObject({ statusCode: 400, isRetryable: false })
  })

  it('replays an HTTP error as the same APICallError', async () => {
    const own = await startFakeProvider({ reply: [{ error: { status: 403, message: 'Not allowed.' } }] })
    boundary.addModelEndpoints(own.url)
    const run = async () =>
      generateText({ model: model(own.url), prompt: 'hi', maxRetries: 0, maxOutputTokens: 64 }).then(
        () => undefined,
        (e: APICallError) => ({
          name: e.name,
          message: e.message,
          status: e.statusCode,
          body: e.responseBody,
        }),
      )
    const rec = await runTaped(store, `${name}-error.jsonl`, 'auto', run)
    await own.close()
    const replay = await runTaped(store, `${name}-error.jsonl`, 'replay', run)
    expect(rec.result).toMatchObject({ name: 'AI_APICallError', message: 'Not allowed.', status: 403 })
    expect(replay.result).toEqual(rec.result)
  })

  it('replays a mid-stream exception as the same error part', async () => {
    const own = await startFakeProvider({
      reply: [{ text: 'partial answer here', streamError: { afterEvents: 3, type: 'throttlingException' } }],
    })
    boundary.addModelEndpoints(own.url)
    const rec = await runTaped(store, `${name}-stream-error.jsonl`, 'auto', stream('hi', own.url))
    await own.close()
    const replay = await runTaped(store, `${name}-stream-error.jsonl`, 'replay', stream('hi', own.url))
    expect(rec.result?.errors).toHaveLength(1)
    // Converse hands on the exception's body; the Claude provider fails to parse its own rewrite of it.
    const [error] = (rec.result?.errors ?? []) as { message: string }[]
    expect(error?.message).toContain('The model stream was interrupted.')
    expect(replay.result).toEqual(rec.result)
    expect(replay.state.status).toBe('clean')
  })
})
