import { expect, it } from 'vitest'
import { placeholderIn, placeholderKey, provideReplayKeys } from './replay-keys.js'

const NO_FILES = { exists: () => false, home: '/home/dev' }

it('sets every unset provider key to a placeholder that names it, and names the ones it set', () => {
  const env: Record<string, string | undefined> = { OPENAI_API_KEY: 'sk-real', PATH: '/bin' }
  const set = provideReplayKeys(env)
  expect(set).toContain('ANTHROPIC_API_KEY')
  expect(set).toContain('GOOGLE_API_KEY')
  expect(set).not.toContain('OPENAI_API_KEY')
  for (const name of set) expect(env[name], name).toBe(placeholderKey(name))
  expect(placeholderKey('ANTHROPIC_API_KEY')).toBe('replay-placeholder-key-for-ANTHROPIC_API_KEY')
  expect(env.OPENAI_API_KEY).toBe('sk-real')
  expect(env.PATH).toBe('/bin')
  expect(Object.keys(env).filter((name) => !set.includes(name))).toEqual(['OPENAI_API_KEY', 'PATH'])
})

it('replaces an empty key, as an SDK treats it as missing', () => {
  const env: Record<string, string | undefined> = { ANTHROPIC_API_KEY: '', OPENAI_API_KEY: undefined }
  const set = provideReplayKeys(env)
  expect(set).toEqual(expect.arrayContaining(['ANTHROPIC_API_KEY', 'OPENAI_API_KEY']))
  expect(env.ANTHROPIC_API_KEY).toBe(placeholderKey('ANTHROPIC_API_KEY'))
})

it('gives a key an SDK reads from either of two variables one placeholder, and none while one is set', () => {
  // @google/genai warns "Both GOOGLE_API_KEY and GEMINI_API_KEY are set" when it finds two.
  const empty: Record<string, string | undefined> = {}
  provideReplayKeys(empty)
  expect(empty.GOOGLE_API_KEY).toBe(placeholderKey('GOOGLE_API_KEY'))
  expect(empty.GEMINI_API_KEY).toBeUndefined()
  const gemini: Record<string, string | undefined> = { GEMINI_API_KEY: 'AIza-real' }
  expect(provideReplayKeys(gemini)).not.toContain('GOOGLE_API_KEY')
  expect(gemini.GOOGLE_API_KEY).toBeUndefined()
  // Another SDK's variable for the same provider is its own credential.
  expect(gemini.GOOGLE_GENERATIVE_AI_API_KEY).toBe(placeholderKey('GOOGLE_GENERATIVE_AI_API_KEY'))
})

it('sets a key and its secret together, and neither while one of them is set', () => {
  const empty: Record<string, string | undefined> = {}
  expect(provideReplayKeys(empty)).toEqual(
    expect.arrayContaining(['AWS_ACCESS_KEY_ID', 'AWS_SECRET_ACCESS_KEY']),
  )
  const half: Record<string, string | undefined> = { AWS_ACCESS_KEY_ID: 'AKIAREAL' }
  const set = provideReplayKeys(half)
  expect(set).not.toContain('AWS_SECRET_ACCESS_KEY')
  expect(half.AWS_SECRET_ACCESS_KEY).toBeUndefined()
})

it('leaves a provider whose SDKs find credentials elsewhere alone in a run that may record', () => {
  const profile: Record<string, string | undefined> = { AWS_PROFILE: 'dev' }
  expect(provideReplayKeys(profile, { mayRecord: true, ...NO_FILES })).not.toContain('AWS_ACCESS_KEY_ID')
  const files: string[] = []
  const withFile: Record<string, string | undefined> = {}
  const set = provideReplayKeys(withFile, {
    mayRecord: true,
    home: '/home/dev',
    exists: (path) => {
      files.push(path)
      return path === '/home/dev/.aws/config'
    },
  })
  expect(files).toContain('/home/dev/.aws/config')
  expect(set).not.toContain('AWS_ACCESS_KEY_ID')
  expect(set).toContain('OPENAI_API_KEY')
  // Nothing else: the placeholders go to every provider again.
  expect(provideReplayKeys({}, { mayRecord: true, ...NO_FILES })).toContain('AWS_ACCESS_KEY_ID')
  // A run that only replays sends nothing: the placeholders spare the SDK a lookup that could fail.
  expect(provideReplayKeys({ AWS_PROFILE: 'dev' }, NO_FILES)).toContain('AWS_ACCESS_KEY_ID')
})

it('sets nothing the second time', () => {
  const env: Record<string, string | undefined> = {}
  expect(provideReplayKeys(env).length).toBeGreaterThan(10)
  expect(provideReplayKeys(env)).toEqual([])
})

it('writes to process.env by default', () => {
  const saved = process.env.PERPLEXITY_API_KEY
  delete process.env.PERPLEXITY_API_KEY
  try {
    const set = provideReplayKeys()
    expect(set).toContain('PERPLEXITY_API_KEY')
    expect(process.env.PERPLEXITY_API_KEY).toBe(placeholderKey('PERPLEXITY_API_KEY'))
    for (const name of set) delete process.env[name]
  } finally {
    if (saved === undefined) delete process.env.PERPLEXITY_API_KEY
    else process.env.PERPLEXITY_API_KEY = saved
  }
})

it('finds the placeholder a request carries, in a header or its URL, and names its variable', () => {
  const at = (url: string, headers: Record<string, string> = {}) =>
    placeholderIn(new Request(url, { headers }))
  expect(
    at('https://api.openai.com/v1/chat/completions', {
      authorization: `Bearer ${placeholderKey('OPENAI_API_KEY')}`,
    }),
  ).toBe('OPENAI_API_KEY')
  expect(
    at('https://api.anthropic.com/v1/messages', { 'x-api-key': placeholderKey('ANTHROPIC_API_KEY') }),
  ).toBe('ANTHROPIC_API_KEY')
  expect(
    at(
      `https://generativelanguage.googleapis.com/v1beta/models/m:generateContent?key=${placeholderKey('GOOGLE_API_KEY')}`,
    ),
  ).toBe('GOOGLE_API_KEY')
  expect(
    at('https://bedrock-runtime.us-east-1.amazonaws.com/model/m/converse', {
      authorization: `AWS4-HMAC-SHA256 Credential=${placeholderKey('AWS_ACCESS_KEY_ID')}/20250101/us-east-1/bedrock/aws4_request, SignedHeaders=host, Signature=abc`,
    }),
  ).toBe('AWS_ACCESS_KEY_ID')
  expect(
    at('https://api.openai.com/v1/chat/completions', { authorization: 'Bearer sk-real' }),
  ).toBeUndefined()
})
