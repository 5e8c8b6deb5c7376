import { createHash } from 'node:crypto'
import { describe, expect, it } from 'vitest'
import { MODEL_CODECS } from './codecs/index.js'
import type { RequestClass } from './endpoints.js'
import { decideRequest, REQUEST_WIRE_VERSION, readRequestParts, wireHead } from './request-input.js'

/**
 * A replayed request whose fingerprint was recorded takes the recorded decision without being
 * canonicalized, which is sound only while identical bytes canonicalize as they did when the
 * fingerprint was written. So what the canonicalization makes of a fixed corpus is pinned here,
 * per codec (and for requests no codec reads), under each `REQUEST_WIRE_VERSION`: a change to a
 * codec's canonical body, the behaviour headers, the credential parameters or the way bodies are
 * read fails this test until the version is bumped and the new digests are pinned under the new
 * version (a released version's digests never change). A new codec only adds its own digest: its
 * requests carried no codec name in their fingerprints before, so none recorded then can match.
 */
const CANONICAL_DIGESTS: Record<number, Record<string, string>> = {
  1: {
    'openai-chat': '97c16da469794430ddf0bd936360591e8dfd769c006f7bb773676c91105eb4cf',
    'openai-responses': '3e775680f1b81de170dcb57af32610fd0e1de661e5614d148cd91487d4f17062',
    'anthropic-messages': 'dfd144ce9144013265968efe25ed74370c3be64e41718f4792fceb4d4a2c1445',
    gemini: '9e0fd7ebb87e311adc29d8ba5d7969fe233b4e6ee0fb902c7cd4733fcd418425',
    'bedrock-converse': '764d1fd2b7e541a066ba06391e932e0b63c7c51515c71d357d650917a93cf311',
    'bedrock-invoke': '94c73fbfba81259a5f1ffc53edc967d794fcd20f1fc31a031d5344c55c9ab6b6',
    ollama: 'f1c12fb886d64f9c7480c6aea98076264b689dc2900e49e08061029bc09049e7',
    'no codec': '55cd6abf67c5c0b1fa7e04e3c8821a8762aea29c6e0c1e1931e95fb16b1ea423',
  },
}

const tools = (name: (n: string) => unknown) => ['zeta', 'alpha', 'mid'].map(name)
const volatile = {
  user: 'u-1',
  metadata: { run: 'r-9' },
  store: true,
  prompt_cache_key: 'k',
  safety_identifier: 's',
  service_tier: 'auto',
}

interface Sample {
  method?: string
  url: string
  requestClass: RequestClass
  headers?: Record<string, string>
  body?: string | Uint8Array
}

const json = (value: unknown) => JSON.stringify(value)

const CORPUS: Sample[] = [
  {
    url: 'https://api.openai.com/v1/chat/completions?api-version=2024-10-21&api-key=sk-x&key=abc',
    requestClass: 'model',
    headers: {
      'content-type': 'application/json',
      'openai-beta': 'assistants=v2',
      authorization: 'Bearer sk-x',
    },
    body: json({
      ...volatile,
      model: 'gpt-4o',
      messages: [
        { role: 'system', content: 'Be brief.' },
        { role: 'user', content: 'Refund INV-412 ~ a/b' },
        {
          role: 'assistant',
          tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'x', arguments: '{}' } }],
        },
        { role: 'tool', tool_call_id: 'call_1', content: '{"ok":true}' },
      ],
      tools: tools((name) => ({ type: 'function', function: { name, parameters: { type: 'object' } } })),
      temperature: 0.2,
    }),
  },
  {
    url: 'https://api.openai.com/v1/responses',
    requestClass: 'model',
    headers: { 'content-type': 'application/json' },
    body: json({
      ...volatile,
      model: 'gpt-4.1',
      input: [{ role: 'user', content: [{ type: 'input_text', text: 'hi' }] }],
      tools: [...tools((name) => ({ type: 'function', name })), { type: 'web_search' }],
    }),
  },
  {
    url: 'https://api.anthropic.com/v1/messages',
    requestClass: 'model',
    headers: {
      'content-type': 'application/json',
      'anthropic-version': '2023-06-01',
      'anthropic-beta': 'prompt-caching-2024-07-31',
      'x-api-key': 'sk-ant-x',
    },
    body: json({
      ...volatile,
      model: 'claude-sonnet-4-5',
      max_tokens: 512,
      system: [{ type: 'text', text: 'Be brief.', cache_control: { type: 'ephemeral' } }],
      messages: [
        { role: 'user', content: 'hi' },
        { role: 'assistant', content: [{ type: 'tool_use', id: 'toolu_1', name: 'mid', input: {} }] },
      ],
      tools: [
        ...tools((name) => ({ name, input_schema: { type: 'object' } })),
        { type: 'web_search_20250305' },
      ],
    }),
  },
  {
    url: 'https://generativelanguage.googleapis.com/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse&key=AIza-x',
    requestClass: 'model',
    headers: { 'content-type': 'application/json', 'x-goog-api-key': 'AIza-x' },
    body: json({
      labels: { team: 'a' },
      contents: [
        { role: 'user', parts: [{ text: 'weather?' }] },
        { role: 'model', parts: [{ functionCall: { id: 'rand-9', name: 'mid', args: { city: 'Oslo' } } }] },
        { role: 'user', parts: [{ functionResponse: { id: 'rand-9', name: 'mid', response: { t: 3 } } }] },
      ],
      systemInstruction: { parts: [{ text: 'Be brief.' }] },
      tools: [{ functionDeclarations: tools((name) => ({ name })) }],
      generationConfig: { temperature: 0 },
    }),
  },
  {
    url: 'https://bedrock-runtime.us-east-1.amazonaws.com/model/anthropic.claude-3-5-sonnet-20240620-v1%3A0/converse',
    requestClass: 'model',
    headers: { 'content-type': 'application/json', authorization: 'AWS4-HMAC-SHA256 Credential=AKIAEXAMPLE' },
    body: json({
      requestMetadata: { run: '1' },
      serviceTier: { type: 'default' },
      messages: [{ role: 'user', content: [{ text: 'hi' }] }],
      toolConfig: { tools: tools((name) => ({ toolSpec: { name, inputSchema: { json: {} } } })) },
    }),
  },
  {
    url: 'https://bedrock-runtime.us-east-1.amazonaws.com/model/anthropic.claude-3-haiku/invoke',
    requestClass: 'model',
    headers: { 'content-type': 'application/octet-stream', 'x-amzn-bedrock-trace': 'ENABLED' },
    body: new TextEncoder().encode(
      json({
        anthropic_version: 'bedrock-2023-05-31',
        messages: [{ role: 'user', content: 'hi' }],
        ...volatile,
      }),
    ),
  },
  {
    url: 'http://127.0.0.1:11434/api/chat',
    requestClass: 'model',
    headers: { 'content-type': 'application/json' },
    body: json({
      model: 'llama3.2',
      keep_alive: '5m',
      stream: true,
      messages: [{ role: 'user', content: 'hi' }],
      tools: tools((name) => ({ type: 'function', function: { name } })),
      options: { seed: 1 },
    }),
  },
  // A model host whose path no codec owns, and a codec's path whose body is not JSON.
  {
    url: 'https://api.openai.com/v1/files?purpose=batch',
    requestClass: 'model',
    headers: { 'content-type': 'text/plain' },
    body: 'line one\nline two',
  },
  {
    url: 'https://api.openai.com/v1/chat/completions',
    requestClass: 'model',
    headers: { 'content-type': 'application/json' },
    body: 'not json',
  },
  // Other HTTP: JSON, a form with a credential, text, bytes that are not UTF-8, multipart, a GET.
  {
    url: 'https://api.example.test/search?q=tape&token=t-1&b=2&a=1',
    requestClass: 'external',
    headers: { 'content-type': 'application/json; charset=utf-8', accept: 'application/json' },
    body: json({ z: 1, a: [1, 2, { b: null }] }),
  },
  {
    url: 'https://auth.example.test/oauth/token',
    requestClass: 'external',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: 'grant_type=client_credentials&client_id=app&client_secret=shh',
  },
  {
    url: 'https://api.example.test/echo',
    requestClass: 'external',
    headers: { 'content-type': 'text/markdown' },
    body: '# Title\n\nü',
  },
  {
    url: 'https://api.example.test/upload',
    requestClass: 'external',
    headers: { 'content-type': 'application/octet-stream' },
    body: new Uint8Array([0xff, 0xfe, 0x00, 0x41, 0xc3]),
  },
  {
    url: 'https://api.example.test/form',
    requestClass: 'external',
    headers: { 'content-type': 'multipart/form-data; boundary=----b123' },
    body: '------b123\r\nContent-Disposition: form-data; name="a"\r\n\r\n1\r\n------b123--\r\n',
  },
  { method: 'GET', url: 'https://api.example.test/items?page=2', requestClass: 'external' },
  {
    url: 'https://api.example.test/raw',
    requestClass: 'external',
    body: '{"looks":"like json"}',
  },
]

function decideSample(sample: Sample) {
  const method = sample.method ?? 'POST'
  const request = new Request(sample.url, {
    method,
    headers: sample.headers,
    ...(sample.body === undefined ? {} : { body: sample.body }),
  })
  const url = new URL(sample.url)
  const bytes = sample.body === undefined ? undefined : Buffer.from(sample.body)
  const parts = readRequestParts(request, url, sample.requestClass, bytes)
  const decision = decideRequest(parts)
  return {
    head: wireHead(parts),
    kind: decision.kind,
    codec: decision.codec?.name ?? null,
    input: decision.input,
  }
}

describe('what identical request bytes canonicalize to', () => {
  const decided = CORPUS.map(decideSample)

  it('covers every codec', () => {
    expect(new Set(decided.map((d) => d.codec))).toEqual(new Set([...MODEL_CODECS.map((c) => c.name), null]))
  })

  it('is pinned for this REQUEST_WIRE_VERSION', () => {
    const byCodec = new Map<string, unknown[]>()
    for (const d of decided) {
      // The codec the head names: the one that owns the route, whether or not it read the body.
      const codec = (JSON.parse(d.head) as unknown[])[2] ?? 'no codec'
      byCodec.set(String(codec), [...(byCodec.get(String(codec)) ?? []), d])
    }
    const digests = Object.fromEntries(
      [...byCodec].map(([codec, items]) => [
        codec,
        createHash('sha256').update(JSON.stringify(items)).digest('hex'),
      ]),
    )
    const pinned = CANONICAL_DIGESTS[REQUEST_WIRE_VERSION] ?? {}
    const changed = Object.keys(pinned).filter((codec) => digests[codec] !== pinned[codec])
    expect(
      changed,
      `What requests of ${changed.join(', ')} canonicalize to changed. Fingerprints recorded under REQUEST_WIRE_VERSION ${REQUEST_WIRE_VERSION} would now answer requests that key differently: bump REQUEST_WIRE_VERSION in request-input.ts and pin these digests under the new version: ${JSON.stringify(digests)}`,
    ).toEqual([])
    const unpinned = Object.keys(digests).filter((codec) => !(codec in pinned))
    expect(
      unpinned,
      `No digest is pinned for ${unpinned.join(', ')} under REQUEST_WIRE_VERSION ${REQUEST_WIRE_VERSION}: add ${JSON.stringify(Object.fromEntries(unpinned.map((c) => [c, digests[c]])))}`,
    ).toEqual([])
  })
})
