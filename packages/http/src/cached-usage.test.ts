import { describe, expect, it } from 'vitest'
import { anthropicMessagesCodec } from './codecs/anthropic-messages.js'
import { bedrockConverseCodec } from './codecs/bedrock-converse.js'
import { geminiCodec } from './codecs/gemini.js'
import { geminiLiveCodec } from './codecs/gemini-live.js'
import { openaiChatCodec } from './codecs/openai-chat.js'
import { openaiRealtimeCodec } from './codecs/openai-realtime.js'
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

// Audio is a part of the input or output too, priced at the model's audio rate: a model that
// hears or speaks reports it apart, over HTTP (chat completions, Gemini) and in realtime sessions.
describe('audio tokens', () => {
  it('are read from OpenAI chat answers, whole and streamed', () => {
    const usage = {
      prompt_tokens: 900,
      completion_tokens: 400,
      prompt_tokens_details: { cached_tokens: 100, audio_tokens: 700 },
      completion_tokens_details: { audio_tokens: 380, reasoning_tokens: 0 },
    }
    const read = { input: 900, output: 400, cached: 100, inputAudio: 700, outputAudio: 380 }
    expect(openaiChatCodec.usage({ usage }, [])).toEqual(read)
    expect(openaiChatCodec.usage(undefined, [{ choices: [] }, { choices: [], usage }])).toEqual(read)
    const text = { ...usage, prompt_tokens_details: { audio_tokens: 0 }, completion_tokens_details: {} }
    expect(openaiChatCodec.usage({ usage: text }, [])).toEqual({ input: 900, output: 400 })
  })

  it("are read from Gemini's counts by modality, over HTTP and in a Live session", () => {
    const usageMetadata = {
      promptTokenCount: 1200,
      candidatesTokenCount: 50,
      cachedContentTokenCount: 300,
      promptTokensDetails: [
        { modality: 'TEXT', tokenCount: 200 },
        { modality: 'AUDIO', tokenCount: 1000 },
      ],
      candidatesTokensDetails: [{ modality: 'TEXT', tokenCount: 50 }],
      cacheTokensDetails: [{ modality: 'AUDIO', tokenCount: 300 }],
    }
    expect(geminiCodec.usage({ usageMetadata }, [])).toEqual({
      input: 1200,
      output: 50,
      cached: 300,
      inputAudio: 1000,
      cachedAudio: 300,
    })
    const spoken = {
      usageMetadata: {
        promptTokenCount: 40,
        responseTokenCount: 90,
        responseTokensDetails: [{ modality: 'AUDIO', tokenCount: 90 }],
      },
    }
    expect(geminiLiveCodec.readMessages([spoken, spoken]).usage).toEqual({
      input: 80,
      output: 180,
      outputAudio: 180,
    })
  })

  it('are read from Realtime responses, each response of a message added', () => {
    const done = (audio: number) => ({
      type: 'response.done',
      response: {
        status: 'completed',
        usage: {
          input_tokens: 100 + audio,
          output_tokens: 20 + audio,
          input_token_details: {
            text_tokens: 100,
            audio_tokens: audio,
            cached_tokens: 64,
            cached_tokens_details: { text_tokens: 0, audio_tokens: 64 },
          },
          output_token_details: { text_tokens: 20, audio_tokens: audio },
        },
      },
    })
    expect(openaiRealtimeCodec.readMessages([done(500), done(0)]).usage).toEqual({
      input: 700,
      output: 540,
      cached: 128,
      inputAudio: 500,
      outputAudio: 500,
      cachedAudio: 128,
    })
    expect(
      sumUsage([
        { input: 1, output: 1, inputAudio: 1 },
        { input: 2, output: 2, outputAudio: 2 },
      ]),
    ).toEqual({
      input: 3,
      output: 3,
      inputAudio: 1,
      outputAudio: 2,
    })
  })
})
