import { describe, expect, it } from 'vitest'
import { readModelAnswer, readModelRequest } from '../read-exchange.js'
import { recordedUsage } from '../usage.js'
import { geminiCodec } from './gemini.js'
import { findCodec, isModelHost } from './index.js'

describe('which requests are Gemini’s', () => {
  it('owns generateContent and streamGenerateContent on the Gemini API and on Vertex AI', () => {
    for (const path of [
      '/v1beta/models/gemini-2.5-flash:generateContent',
      '/v1/models/gemini-2.5-flash:streamGenerateContent',
      '/v1beta/tunedModels/my-model-123:generateContent',
      '/v1/projects/p/locations/us-central1/publishers/google/models/gemini-2.5-pro:streamGenerateContent',
      '/v1beta1/publishers/google/models/gemini-2.5-flash:generateContent',
      '/v1/projects/p/locations/us-central1/endpoints/1234567890:generateContent',
    ])
      expect(findCodec('POST', path), path).toBe(geminiCodec)
    for (const path of ['/v1beta/models/gemini-2.5-flash:countTokens', '/v1beta/models/gemini-2.5-flash'])
      expect(findCodec('POST', path), path).toBeUndefined()
    expect(findCodec('GET', '/v1beta/models/gemini-2.5-flash:generateContent')).toBeUndefined()
  })

  it('serves from the Gemini API host and Vertex AI’s global and regional hosts', () => {
    for (const host of [
      'generativelanguage.googleapis.com',
      'aiplatform.googleapis.com',
      'us-central1-aiplatform.googleapis.com',
      'europe-west4-aiplatform.googleapis.com',
    ])
      expect(isModelHost(host), host).toBe(true)
    for (const host of ['googleapis.com', 'aiplatform.googleapis.com.evil.test', 'storage.googleapis.com'])
      expect(isModelHost(host), host).toBe(false)
  })
})

describe('the key of a Gemini request', () => {
  it('numbers function call ids by first appearance, so ids a client makes up do not change it', () => {
    const body = (a: string, b: string) => ({
      contents: [
        { role: 'user', parts: [{ text: 'Weather in Paris and Lyon?' }] },
        {
          role: 'model',
          parts: [
            { functionCall: { id: a, name: 'get_weather', args: { city: 'Paris' } } },
            { functionCall: { id: b, name: 'get_weather', args: { city: 'Lyon' } } },
          ],
        },
        {
          role: 'user',
          parts: [
            { functionResponse: { id: b, name: 'get_weather', response: { t: 12 } } },
            { functionResponse: { id: a, name: 'get_weather', response: { t: 18 } } },
          ],
        },
      ],
    })
    const canonical = geminiCodec.canonicalBody(body('YSBMgdTNJagy8wCa', 'q1w2e3r4t5y6u7i8')) as typeof body
    expect(canonical).toEqual(geminiCodec.canonicalBody(body('myr4aLNLTs7yu9dn', 'zxcvbnmasdfghjkl')))
    expect(JSON.stringify(canonical)).toContain('"functionResponse":{"id":"call-2"')
    // Which response answers which call still counts.
    expect(geminiCodec.canonicalBody(body('a', 'b'))).not.toEqual(
      geminiCodec.canonicalBody({
        contents: body('a', 'b').contents.map((c, i) => (i === 2 ? body('b', 'a').contents[2] : c)),
      }),
    )
  })

  it('sorts declarations inside one tool too, keeps built-in tools, and drops Vertex billing labels', () => {
    const body = {
      contents: [],
      labels: { team: 'research' },
      tools: [{ googleSearch: {} }, { functionDeclarations: [{ name: 'search' }, { name: 'fetch_page' }] }],
      generationConfig: { temperature: 0 },
    }
    expect(geminiCodec.canonicalBody(body)).toEqual({
      contents: [],
      tools: [{ functionDeclarations: [{ name: 'fetch_page' }, { name: 'search' }] }, { googleSearch: {} }],
      generationConfig: { temperature: 0 },
    })
  })

  it('answers a miss in Google’s error shape, naming agent-tape as the reason', () => {
    expect(geminiCodec.errorBody('the report')).toEqual({
      error: {
        code: 400,
        message: 'the report',
        status: 'FAILED_PRECONDITION',
        details: [
          {
            '@type': 'type.googleapis.com/google.rpc.ErrorInfo',
            reason: 'AGENT_TAPE_REPLAY_MISS',
            domain: 'agent-tape',
            metadata: { code: 'ERR_TAPE_MISS' },
          },
        ],
      },
    })
  })
})

describe('reading a recorded Gemini exchange', () => {
  const input = { api: 'gemini', path: '/v1beta/models/gemini-2.5-pro:streamGenerateContent' }
  const chunk = (parts: unknown[], extra: Record<string, unknown> = {}) => ({
    candidates: [{ content: { role: 'model', parts }, ...extra }],
    modelVersion: 'gemini-2.5-pro',
    responseId: 'wzCjaPa4As7shMIP2Mei0AI',
  })

  it('reads the model from the path, the turns, the declarations and the last turn', () => {
    expect(
      readModelRequest({
        ...input,
        body: {
          systemInstruction: { parts: [{ text: 'Be brief' }] },
          contents: [
            {
              role: 'user',
              parts: [{ text: 'Look at this' }, { inlineData: { mimeType: 'image/png', data: 'iVBO' } }],
            },
          ],
          tools: [{ functionDeclarations: [{ name: 'a' }, { name: 'b' }] }, { codeExecution: {} }],
        },
      }),
    ).toMatchObject({
      model: 'gemini-2.5-pro',
      messages: 1,
      tools: 3,
      last: { role: 'user', text: 'Look at this [image/png]' },
    })
  })

  it('assembles text and function calls from a stream, leaves thoughts out and counts them as output', () => {
    const usage = (candidates?: number) => ({
      usageMetadata: {
        promptTokenCount: 40,
        ...(candidates === undefined ? {} : { candidatesTokenCount: candidates, thoughtsTokenCount: 25 }),
      },
    })
    const events = [
      { ...chunk([{ text: 'Planning the lookup', thought: true }]), ...usage() },
      { ...chunk([{ text: 'Checking ' }]), ...usage() },
      { ...chunk([{ text: 'the weather.' }]), ...usage() },
      {
        ...chunk(
          [{ functionCall: { name: 'get_weather', args: { city: 'Paris' } }, thoughtSignature: 'c2ln' }],
          {
            finishReason: 'STOP',
          },
        ),
        ...usage(12),
      },
    ]
    const out = {
      status: 200,
      headers: { 'content-type': 'text/event-stream' },
      body: { sse: events.map((e) => ({ t: 0, json: e, separators: [',', ': '] })) },
    }
    expect(readModelAnswer(input, out)).toEqual({
      status: 200,
      streamed: true,
      model: 'gemini-2.5-pro',
      text: 'Checking the weather.',
      toolCalls: [{ name: 'get_weather', arguments: '{"city":"Paris"}' }],
      finishReason: 'STOP',
      usage: { input: 40, output: 37 },
    })
  })

  it('reads an error body written into the stream, and a body stored as pretty-printed text', () => {
    const error =
      '{\n  "error": {\n    "code": 503,\n    "message": "Overloaded.",\n    "status": "UNAVAILABLE"\n  }\n}\n'
    const streamed = {
      status: 200,
      headers: {},
      body: {
        sse: [
          { t: 0, json: chunk([{ text: 'Half' }]) },
          { t: 1, text: error },
        ],
      },
    }
    expect(readModelAnswer(input, streamed)).toMatchObject({
      text: 'Half',
      error: 'stream error: UNAVAILABLE: Overloaded.',
    })
    const json = {
      status: 200,
      headers: {},
      body: {
        text: `${JSON.stringify({ ...chunk([{ text: 'Hi' }], { finishReason: 'MAX_TOKENS' }), usageMetadata: { promptTokenCount: 3, candidatesTokenCount: 1 } }, null, 2)}\n`,
      },
    }
    expect(readModelAnswer(input, json)).toMatchObject({
      text: 'Hi',
      finishReason: 'MAX_TOKENS',
      usage: { input: 3, output: 1 },
    })
    expect(recordedUsage(input, json)).toEqual({ input: 3, output: 1 })
    expect(
      readModelAnswer(input, { status: 429, headers: {}, body: { text: error.replace('503', '429') } }),
    ).toMatchObject({
      error: '429 UNAVAILABLE: Overloaded.',
    })
  })

  it('says why a prompt was blocked when no candidate came back', () => {
    const out = { status: 200, headers: {}, body: { json: { promptFeedback: { blockReason: 'SAFETY' } } } }
    expect(readModelAnswer(input, out)).toMatchObject({ text: '', finishReason: 'blocked: SAFETY' })
  })
})
