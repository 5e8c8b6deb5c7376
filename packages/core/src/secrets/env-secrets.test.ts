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
