import { expect, it } from 'vitest'
import { secretEnvValues } from './env-secrets.js'

it('takes the values of secret-named variables whatever their length, longest first', () => {
  const env = {
    OPENAI_API_KEY: 'sk-proj-abcdefghijklmnop',
    DB_PASSWORD: 'hunter7',
    PIN_SECRET: '42',
    USER: 'ada',
  }
  expect(secretEnvValues(env)).toEqual([
    { name: 'OPENAI_API_KEY', value: 'sk-proj-abcdefghijklmnop' },
    { name: 'DB_PASSWORD', value: 'hunter7' },
    { name: 'PIN_SECRET', value: '42' },
  ])
})

it('leaves out working directories, variables that name a file, and switches', () => {
  const env = {
    PWD: '/work/project',
    OLDPWD: '/work',
    HOME: '/root',
    SSH_KEY_PATH: '/root/.ssh/id_ed25519',
    GOOGLE_APPLICATION_CREDENTIALS: '/secrets/service-account.json',
    API_KEY_FILE: 'key.txt',
    SKIP_AUTH: 'true',
    TOKEN_TTL: '3600',
    GITHUB_TOKEN: '',
    OPENAI_API_KEY: 'sk-test-dummy',
    ANTHROPIC_API_KEY: 'test',
    PRIMARY_KEY: 'id',
    NEXT_AUTH: 'basic',
  }
  expect(secretEnvValues(env)).toEqual([])
})

it('reads an environment again when a secret-like variable is added, changed or removed', () => {
  const env: Record<string, string | undefined> = { HOME: '/root', OPENAI_API_KEY: 'sk-proj-first-value-123' }
  expect(secretEnvValues(env)).toEqual([{ name: 'OPENAI_API_KEY', value: 'sk-proj-first-value-123' }])
  env.DB_PASSWORD = 'hunter7'
  expect(secretEnvValues(env).map((s) => s.value)).toEqual(['sk-proj-first-value-123', 'hunter7'])
  env.OPENAI_API_KEY = 'sk-proj-second-value-456'
  expect(secretEnvValues(env).map((s) => s.value)).toEqual(['sk-proj-second-value-456', 'hunter7'])
  env.DB_PASSWORD = 'true'
  expect(secretEnvValues(env).map((s) => s.value)).toEqual(['sk-proj-second-value-456'])
  delete env.OPENAI_API_KEY
  env.GITHUB_TOKEN = 'ghp_someTokenValue42'
  expect(secretEnvValues(env)).toEqual([{ name: 'GITHUB_TOKEN', value: 'ghp_someTokenValue42' }])
  // The caller's array is its own: changing it does not change the next answer.
  secretEnvValues(env).pop()
  expect(secretEnvValues(env)).toHaveLength(1)
  // Another environment object is read on its own.
  expect(secretEnvValues({ AUTH_TOKEN: 'Zx9-other-env-token' })).toEqual([
    { name: 'AUTH_TOKEN', value: 'Zx9-other-env-token' },
  ])
})
