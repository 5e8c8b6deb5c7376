import { describe, expect, it } from 'vitest'
import { anthropicMessagesCodec } from './codecs/anthropic-messages.js'
import { bedrockConverseCodec } from './codecs/bedrock-converse.js'
import { geminiCodec } from './codecs/gemini.js'
import { openaiChatCodec } from './codecs/openai-chat.js'
import { openaiResponsesCodec } from './codecs/openai-responses.js'
import { recordedModelUsage } from './read-exchange.js'
import { sumUsage } from './usage.js'

// Every codec reads cached input as a part of the input, whether its API counts it in the input
// (OpenAI, Gemini) or apart from it (Anthropic, Bedrock), so that prices apply the right rates.
describe('cached tokens', () => {
  it('are part of the prompt count in OpenAI chat and Responses answers', () => {
    const chat = {
      usage: { prompt_tokens: 1000, completion_tokens: 20, prompt_tokens_details: { cached_tokens: 800 } },
    }
    expect(openaiChatCodec.usage(chat, [])).toEqual({ input: 1000, output: 20, cached: 800 })
    const responses = {
      usage: { input_tokens: 500, output_tokens: 9, input_tokens_details: { cached_tokens: 0 } },
    }
    expect(openaiResponsesCodec.usage(responses, [])).toEqual({ input: 500, output: 9 })
  })

  it('are added to the input of Anthropic answers, whole and streamed', () => {
    const usage = {
      input_tokens: 12,
      cache_read_input_tokens: 4000,
      cache_creation_input_tokens: 300,
      output_tokens: 50,
    }
    expect(anthropicMessagesCodec.usage({ usage }, [])).toEqual({
      input: 4312,
      output: 50,
      cached: 4000,
      cacheWrite: 300,
    })
    const events = [
      { type: 'message_start', message: { usage: { ...usage, output_tokens: 1 } } },
      { type: 'message_delta', usage: { output_tokens: 50 } },
    ]
    expect(anthropicMessagesCodec.usage(undefined, events)).toEqual({
      input: 4312,
      output: 50,
      cached: 4000,
      cacheWrite: 300,
    })
  })

  it('are added to the input of Bedrock Converse answers, and read from Gemini usage metadata', () => {
    const converse = {
      usage: { inputTokens: 10, cacheReadInputTokens: 90, cacheWriteInputTokens: 5, outputTokens: 3 },
    }
    expect(bedrockConverseCodec.usage(converse, [])).toEqual({
      input: 105,
      output: 3,
      cached: 90,
      cacheWrite: 5,
    })
    const gemini = {
      usageMetadata: { promptTokenCount: 700, cachedContentTokenCount: 600, candidatesTokenCount: 8 },
    }
    expect(geminiCodec.usage(gemini, [])).toEqual({ input: 700, output: 8, cached: 600 })
  })

  it('add up, and come with the model that answered and the providers whose prices apply', () => {
    expect(
      sumUsage([{ input: 10, output: 1, cached: 4 }, undefined, { input: 5, output: 2, cacheWrite: 5 }]),
    ).toEqual({
      input: 15,
      output: 3,
      cached: 4,
      cacheWrite: 5,
    })
    expect(sumUsage([{ input: 1, output: 1 }])).toEqual({ input: 1, output: 1 })
    const input = {
      api: 'openai-chat',
      method: 'POST',
      path: '/v1/chat/completions',
      body: { model: 'gpt-4o', messages: [] },
    }
    const out = {
      status: 200,
      headers: {},
      body: {
        json: { model: 'gpt-4o-2024-08-06', choices: [], usage: { prompt_tokens: 3, completion_tokens: 1 } },
      },
    }
    expect(recordedModelUsage(input, out)).toEqual({
      api: 'openai-chat',
      model: 'gpt-4o-2024-08-06',
      usage: { input: 3, output: 1 },
      priceProviders: openaiChatCodec.priceProviders,
    })
    expect(
      recordedModelUsage({ ...input, api: 'ollama' }, { ...out, body: { json: { done: true } } }),
    ).toBeUndefined()
  })
})
