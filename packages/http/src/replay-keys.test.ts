import { expect, it } from 'vitest'
import { provideReplayKeys, REPLAY_PLACEHOLDER_KEY } from './replay-keys.js'

it('sets every unset provider key to the placeholder and names the ones it set', () => {
  const env: Record<string, string | undefined> = { OPENAI_API_KEY: 'sk-real', PATH: '/bin' }
  const set = provideReplayKeys(env)
  expect(set).toContain('ANTHROPIC_API_KEY')
  expect(set).toContain('GEMINI_API_KEY')
  expect(set).not.toContain('OPENAI_API_KEY')
  for (const name of set) expect(env[name], name).toBe(REPLAY_PLACEHOLDER_KEY)
  expect(env.OPENAI_API_KEY).toBe('sk-real')
  expect(env.PATH).toBe('/bin')
  expect(Object.keys(env).filter((name) => !set.includes(name))).toEqual(['OPENAI_API_KEY', 'PATH'])
})

it('replaces an empty key, as an SDK treats it as missing', () => {
  const env: Record<string, string | undefined> = { ANTHROPIC_API_KEY: '', OPENAI_API_KEY: undefined }
  const set = provideReplayKeys(env)
  expect(set).toEqual(expect.arrayContaining(['ANTHROPIC_API_KEY', 'OPENAI_API_KEY']))
  expect(env.ANTHROPIC_API_KEY).toBe(REPLAY_PLACEHOLDER_KEY)
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
    expect(process.env.PERPLEXITY_API_KEY).toBe(REPLAY_PLACEHOLDER_KEY)
    for (const name of set) delete process.env[name]
  } finally {
    if (saved === undefined) delete process.env.PERPLEXITY_API_KEY
    else process.env.PERPLEXITY_API_KEY = saved
  }
})
