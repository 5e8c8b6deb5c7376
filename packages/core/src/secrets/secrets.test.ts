import { describe, expect, it } from 'vitest'
import { createMemoryStore } from '../cassette-store.js'
import { isSecretLeakError } from '../errors.js'
import { openTape } from '../open-tape.js'
import { findSecrets, redactSecrets, secretEnvValues } from './index.js'

// Built at run time so that no secret-shaped literal sits in the repository.
const fake = (prefix: string, body: string, n: number) => prefix + body.repeat(n)
const SAMPLES: Record<string, string> = {
  'openai-key': fake('sk-proj-', 'Ab3dE', 8),
  'anthropic-key': fake('sk-ant-api03-', 'Xy9Zq', 10),
  'google-key': fake('AIza', 'Q', 35),
  'aws-access-key': fake('AKIA', 'Z', 16),
  'github-token': fake('ghp_', 'a1B2', 9),
  jwt: `${fake('eyJ', 'hbGci', 4)}.${fake('eyJ', 'zdWIi', 4)}.${fake('', 'sig0', 5)}`,
  'bearer-token': `Bearer ${fake('', 'tok3n', 6)}`,
}

describe('secret scan', () => {
  it.each(Object.entries(SAMPLES))('finds %s inside a longer string', (rule, secret) => {
    const findings = findSecrets({ note: `value: ${secret} (end)` }, [])
    expect(findings.map((f) => [f.path, f.rule])).toContainEqual(['note', rule])
    expect(findings[0]!.preview).not.toContain(secret)
  })

  it('reads a cookie line of many pairs in time that grows with its length, not doubling with each pair', () => {
    const session = fake('', 'Qw7eR', 5)
    const pairs = Array.from({ length: 40 }, (_, i) => `a${i}=b`).join('; ')
    const rules = (line: string) => findSecrets({ line }, []).map((f) => f.rule)
    // Failing the `Cookie:` branch on a `Set-Cookie:` line once tried every way to split its pairs.
    expect(rules(`Set-Cookie: session=${session}; ${pairs}`)).toHaveLength(1)
    expect(rules(`Set-Cookie: theme=dark; ${pairs}`)).toEqual([])
    expect(rules(JSON.stringify({ headers: `Set-Cookie: theme=dark; ${pairs}` }))).toEqual([])
    expect(rules(`Cookie: ${pairs}; session=${session}`)).toHaveLength(1)
    expect(rules(`Cookie: ${pairs};   theme=${session}`)).toEqual(['cookie'])
  })

  it('finds the values of secret-like environment variables, not of others', () => {
    const env = { STRIPE_SECRET: 'rk_live_1234567890', MY_TOKEN: 'abcdefgh12', HOME: '/root/somewhere' }
    expect(secretEnvValues(env).map((s) => s.name)).toEqual(['STRIPE_SECRET', 'MY_TOKEN'])
    const findings = findSecrets({ a: ['x', 'key rk_live_1234567890'] }, secretEnvValues(env))
    expect(findings).toEqual([
      {
        path: 'a[1]',
        rule: 'env:STRIPE_SECRET',
        label: 'the value of $STRIPE_SECRET',
        preview: '18 chars',
      },
    ])
  })

  it('redacts secrets to markers and honours an allow list', () => {
    const openai = SAMPLES['openai-key']!
    expect(redactSecrets({ h: `Bearer-less ${openai}` }, [])).toEqual({
      h: 'Bearer-less [REDACTED:openai-key]',
    })
    expect(findSecrets({ h: openai }, [], [openai])).toEqual([])
  })
})

describe('writing a cassette with a secret in it', () => {
  it('stores a redacted copy of an input while the key hashes the intact input', async () => {
    const store = createMemoryStore()
    const key = SAMPLES['openai-key']!
    const tape = await openTape({ id: 't', cassettePath: 'c.jsonl', store, mode: 'auto', env: {} })
    await tape.call('http', { url: 'https://api.example.test/v1', auth: key }, () => 'ok')
    await tape.finish()
    expect(store.files['c.jsonl']).toContain('[REDACTED:openai-key]')
    expect(store.files['c.jsonl']).not.toContain(key)
    const replay = await openTape({ id: 't', cassettePath: 'c.jsonl', store, mode: 'replay', env: {} })
    expect(await replay.call('http', { url: 'https://api.example.test/v1', auth: key }, () => 'live')).toBe(
      'ok',
    )
    const other = await openTape({ id: 't', cassettePath: 'c.jsonl', store, mode: 'replay', env: {} })
    const otherKey = `${key.slice(0, -1)}Z`
    await expect(
      other.call('http', { url: 'https://api.example.test/v1', auth: otherKey }, () => 'live'),
    ).rejects.toThrow(/Replay miss/)
  })

  it('refuses the write, naming the decision and field, and leaves the previous cassette as it was', async () => {
    const store = createMemoryStore({ 'c.jsonl': 'previous cassette\n' })
    const env = { PAYMENTS_API_KEY: 'pk_test_0123456789' }
    const tape = await openTape({ id: 't', cassettePath: 'c.jsonl', store, mode: 'update', env })
    await tape.tool('lookup_invoice', { id: 'INV-1' }, () => ({ total: 1 }))
    await tape.tool('get_config', {}, () => ({ gateway: { key: 'pk_test_0123456789' } }))
    const error = await tape.finish().catch((e: unknown) => e)
    expect(isSecretLeakError(error)).toBe(true)
    expect(
      (error as Error).message,
    ).toBe(`[agent-tape] Refusing to write cassette c.jsonl: decision #2 (tool "get_config", step 0) out.gateway.key contains the value of $PAYMENTS_API_KEY (18 chars), and cassettes are committed to version control. Keep secrets out of tool results and responses (or redact them in your tool), or, if the value is not a secret, add it to allowSecrets. Nothing was written.

  decision #2 (tool "get_config", step 0) out.gateway.key: the value of $PAYMENTS_API_KEY (18 chars)`)
    expect(store.files['c.jsonl']).toBe('previous cassette\n')
  })
})
