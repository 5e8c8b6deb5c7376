import { describeDecision } from '@agent-tape/core/internal'
import { describe, expect, it } from 'vitest'
import { behaviourHeaders, storableResponseHeaders } from '../headers.js'
import { describeHttpDecision, readModelRequest, useCodecLabels } from '../read-exchange.js'
import {
  BEHAVIOUR_HEADERS,
  codecByName,
  isModelHost,
  isVolatileField,
  KEY_VARIABLES,
  MODEL_CODECS,
  PROVIDER_ID,
} from './index.js'

describe('what the codecs know, gathered', () => {
  it('recognises each provider host by name or pattern, and nothing else', () => {
    for (const host of [
      'api.openai.com',
      'api.anthropic.com',
      'my-team.openai.azure.com',
      'my-team.cognitiveservices.azure.com',
      'my-project.services.ai.azure.com',
      'api.groq.com',
      'api.perplexity.ai',
      'ollama.com',
      'generativelanguage.googleapis.com',
    ])
      expect(isModelHost(host), host).toBe(true)
    for (const host of ['api.cohere.com'])
      expect(isModelHost(host), `${host} (no codec reads it yet)`).toBe(true)
    for (const host of [
      'openai.com',
      'api.openai.com.evil.test',
      'azure.com',
      'cognitiveservices.azure.com.evil.test',
      'example.com',
      'localhost',
    ])
      expect(isModelHost(host), host).toBe(false)
  })

  it('lists every key variable once, those of providers without a codec included', () => {
    expect(new Set(KEY_VARIABLES).size).toBe(KEY_VARIABLES.length)
    expect(KEY_VARIABLES).toEqual(
      expect.arrayContaining([
        'OPENAI_API_KEY',
        'ANTHROPIC_API_KEY',
        'AZURE_OPENAI_API_KEY',
        'GEMINI_API_KEY',
      ]),
    )
  })

  it('keys every codec’s behaviour headers in one order, whatever the request sent, and nothing else', () => {
    expect(BEHAVIOUR_HEADERS).toEqual([
      'anthropic-version',
      'anthropic-beta',
      'openai-beta',
      'x-amzn-bedrock-guardrailidentifier',
      'x-amzn-bedrock-guardrailversion',
      'x-amzn-bedrock-trace',
      'x-amzn-bedrock-performanceconfig-latency',
    ])
    const headers = new Headers({
      'openai-beta': 'assistants=v2',
      'anthropic-beta': 'tools-2024',
      'anthropic-version': '2023-06-01',
      authorization: 'Bearer x',
      'x-stainless-os': 'Linux',
    })
    expect(Object.entries(behaviourHeaders(headers))).toEqual([
      ['anthropic-version', '2023-06-01'],
      ['anthropic-beta', 'tools-2024'],
      ['openai-beta', 'assistants=v2'],
    ])
    expect(behaviourHeaders(new Headers({ 'openai-beta': 'assistants=v2' }))).toEqual({
      'openai-beta': 'assistants=v2',
    })
  })

  it('stores the common response headers and those a codec names, never credentials or cookies', () => {
    const stored = storableResponseHeaders(
      new Headers({
        'content-type': 'application/json',
        'openai-processing-ms': '12',
        'anthropic-ratelimit-requests-remaining': '99',
        'x-ratelimit-limit-tokens': '1000',
        'set-cookie': 'session=1',
        'openai-organization': 'org-secret',
      }),
    )
    expect(Object.keys(stored).sort()).toEqual([
      'anthropic-ratelimit-requests-remaining',
      'content-type',
      'openai-processing-ms',
      'x-ratelimit-limit-tokens',
    ])
  })

  it('masks the ids every codec names, and only ids with enough characters after the prefix', () => {
    const text =
      'chatcmpl-AbC12345xyz call_12345678 toolu_01ABCDEFGH srvtoolu_ABCDEFGH12 resp_0123456789 msg_short'
    expect(text.replace(PROVIDER_ID, '<id>')).toBe('<id> <id> <id> <id> <id> msg_short')
    expect(isVolatileField('openai-processing-ms')).toBe(true)
    expect(isVolatileField('anthropic-ratelimit-tokens-reset')).toBe(true)
    expect(isVolatileField('content-type')).toBe(false)
  })

  it('gives each codec a distinct name, a host, and an error body for a miss', () => {
    expect(new Set(MODEL_CODECS.map((c) => c.name)).size).toBe(MODEL_CODECS.length)
    for (const codec of MODEL_CODECS) {
      expect(codecByName(codec.name)).toBe(codec)
      expect(codec.hosts.length, codec.name).toBeGreaterThan(0)
      expect(JSON.stringify(codec.errorBody('the report'))).toContain('the report')
    }
  })
})

describe('reading a recorded request', () => {
  it('reads each API’s messages, tools, model and last turn', () => {
    expect(
      readModelRequest({
        api: 'openai-chat',
        method: 'POST',
        path: '/v1/chat/completions',
        body: {
          model: 'gpt-4o',
          messages: [
            { role: 'system', content: 'Be brief' },
            { role: 'user', content: 'Hi' },
          ],
          tools: [{}],
        },
      }),
    ).toEqual({
      api: 'openai-chat',
      method: 'POST',
      path: '/v1/chat/completions',
      model: 'gpt-4o',
      messages: 2,
      tools: 1,
      last: { role: 'user', text: 'Hi' },
    })
    expect(
      readModelRequest({ api: 'openai-responses', body: { model: 'gpt-5', input: 'Hello' } }),
    ).toMatchObject({
      messages: 1,
      last: { role: 'user', text: 'Hello' },
    })
    expect(
      readModelRequest({
        api: 'anthropic-messages',
        body: {
          model: 'claude-sonnet-5',
          messages: [
            {
              role: 'user',
              content: [{ type: 'tool_result', tool_use_id: 't', content: [{ type: 'text', text: '18°C' }] }],
            },
          ],
        },
      }),
    ).toMatchObject({ model: 'claude-sonnet-5', last: { role: 'user', text: 'tool_result: 18°C' } })
  })

  it('reads nothing but the route of a request no codec owns', () => {
    expect(
      readModelRequest({ api: 'unknown-api', method: 'POST', path: '/x', body: { model: 'm' } }),
    ).toEqual({
      api: 'unknown-api',
      method: 'POST',
      path: '/x',
      messages: 0,
      tools: 0,
    })
  })
})

describe('labels', () => {
  const input = {
    api: 'openai-chat',
    method: 'POST',
    path: '/v1/chat/completions',
    body: { model: 'gpt-4o' },
  }

  it('labels a model request by the model its codec reads, and leaves other decisions to core', () => {
    expect(describeHttpDecision('llm', input)).toBe('model request (gpt-4o)')
    expect(describeHttpDecision('llm', { ...input, body: {} })).toBe('model request')
    expect(describeHttpDecision('tool', { name: 'refund' })).toBe('tool "refund"')
  })

  it('gives core’s reports the codec’s label once the boundary is in use', () => {
    useCodecLabels()
    expect(describeDecision('llm', input)).toBe('model request (gpt-4o)')
    // A decision no codec owns keeps core's own label.
    expect(describeDecision('llm', { model: 'local-model' })).toBe('model request (local-model)')
  })
})
