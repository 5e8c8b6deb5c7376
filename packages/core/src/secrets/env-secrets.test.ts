import { expect, it } from 'vitest'
import { secretEnvValues } from './env-secrets.js'

it('takes the values of secret-named variables of 8 characters or more, longest first', () => {
  const env = {
    OPENAI_API_KEY: 'sk-proj-abcdefghijklmnop',
    DB_PASSWORD: 'hunter77',
    SIGNING_SECRET: 'correct-horse-battery-staple',
    PIN_SECRET: '4242',
    SHORT_TOKEN: 'hunter7',
    USER: 'ada',
  }
  expect(secretEnvValues(env)).toEqual([
    { name: 'SIGNING_SECRET', value: 'correct-horse-battery-staple' },
    { name: 'OPENAI_API_KEY', value: 'sk-proj-abcdefghijklmnop' },
    { name: 'DB_PASSWORD', value: 'hunter77' },
  ])
})

it('reads a name by its words: limits, places and kinds of a credential are not one', () => {
  const value = 'Zq8-value-of-a-secret'
  const names = [
    'PASSWORD_MIN_LENGTH',
    'PASSWORD_MAX_AGE',
    'OPENAI_MAX_TOKENS',
    'TOKEN_URL',
    'AUTH_ENDPOINT',
    'API_KEY_HEADER',
    'SECRET_NAME',
    'SECRET_MANAGER_REGION',
    'TOKEN_LIMIT',
    'SESSION_TIMEOUT',
    'JWT_EXPIRY',
    'KEY_COUNT',
    'TOKENIZERS_PARALLELISM',
    'SSH_AUTH_SOCK',
    'OPENAI_MODEL',
  ]
  expect(secretEnvValues(Object.fromEntries(names.map((n) => [n, value])))).toEqual([])
  const secret = ['API_KEY_PROD', 'STRIPE_SECRET_KEY', 'GITHUB_TOKEN', 'DB_PASS', 'CLIENT_SECRET', 'NPM_AUTH']
  expect(secretEnvValues(Object.fromEntries(secret.map((n) => [n, value]))).map((s) => s.name)).toEqual(
    secret,
  )
})

it('reads a value by what it is: numbers, flags, URLs without credentials, names of things are not secrets', () => {
  const env = {
    A_TOKEN: '1024',
    B_TOKEN: '2026-12-01',
    C_TOKEN: 'https://auth.example.com/token',
    D_TOKEN: 'gpt-4o-mini',
    E_TOKEN: 'claude-3-5-sonnet-20241022',
    F_TOKEN: 'us-east-1',
    G_PASSWORD: 'postgres',
    H_PASSWORD: 'Postgres',
    I_TOKEN: 'disabled',
    J_PASSWORD: 'password',
  }
  expect(secretEnvValues(env)).toEqual([])
  expect(secretEnvValues({ K_TOKEN: 'https://ada:Pa55word@db.example.com/app' })).toHaveLength(1)
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
  const env: Record<string, string | undefined> = { HOME: '/root', OPENAI_API_KEY: 'sk-proj-f1rstValue123' }
  expect(secretEnvValues(env)).toEqual([{ name: 'OPENAI_API_KEY', value: 'sk-proj-f1rstValue123' }])
  env.DB_PASSWORD = 'hunter77'
  expect(secretEnvValues(env).map((s) => s.value)).toEqual(['sk-proj-f1rstValue123', 'hunter77'])
  env.OPENAI_API_KEY = 'sk-proj-s3condValue456'
  expect(secretEnvValues(env).map((s) => s.value)).toEqual(['sk-proj-s3condValue456', 'hunter77'])
  env.DB_PASSWORD = 'true'
  expect(secretEnvValues(env).map((s) => s.value)).toEqual(['sk-proj-s3condValue456'])
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
