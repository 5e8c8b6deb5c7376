import { describe, expect, it } from 'vitest'
import { isSecretParamName, readForm, redactUrl, redactUrlsIn } from './params.js'

describe('secret parameter names', () => {
  it.each([
    'key',
    'api_key',
    'apiKey',
    'api-key',
    'apikey',
    'access_token',
    'refresh_token',
    'id_token',
    'client_secret',
    'password',
    'passwd',
    'auth',
    'oauth_token',
    'sig',
    'signature',
    'X-Amz-Signature',
    'X-Amz-Credential',
    'X-Amz-Security-Token',
    'sessionId',
    'jwt',
  ])('%s carries a credential', (name) => {
    expect(isSecretParamName(name)).toBe(true)
  })

  it.each([
    'page',
    'q',
    'page_token',
    'nextToken',
    'continuation_token',
    'max_tokens',
    'author',
    'keyword',
    'monkey',
  ])('%s does not', (name) => {
    expect(isSecretParamName(name)).toBe(false)
  })
})

describe('redactUrl', () => {
  it('replaces credentials in the userinfo and the query, and keeps the rest', () => {
    expect(redactUrl('https://ada:hunter2@db.example.com:5432/app?sslmode=require&password=hunter2')).toBe(
      'https://ada:REDACTED@db.example.com:5432/app?sslmode=require&password=REDACTED',
    )
    expect(redactUrl('https://ghp_token@github.com/acme/repo.git')).toBe(
      'https://REDACTED@github.com/acme/repo.git',
    )
    expect(redactUrl(new URL('https://api.example.com/v1?key=AIzaSy&alt=sse'))).toBe(
      'https://api.example.com/v1?key=REDACTED&alt=sse',
    )
  })

  it('returns a URL without credentials exactly as given, and text that is no URL unchanged', () => {
    expect(redactUrl('http://127.0.0.1:8080')).toBe('http://127.0.0.1:8080')
    expect(redactUrl('not a url')).toBe('not a url')
  })

  it('redacts every URL inside a message', () => {
    expect(redactUrlsIn('GET https://x.test/a?token=abc failed; see https://docs.test/b')).toBe(
      'GET https://x.test/a?token=REDACTED failed; see https://docs.test/b',
    )
  })
})

it('reads a form as decoded fields, with credential fields replaced', () => {
  expect(readForm('grant_type=client_credentials&client_secret=s3cr%21t&note=a+b%2Fc')).toEqual([
    ['grant_type', 'client_credentials'],
    ['client_secret', 'REDACTED'],
    ['note', 'a b/c'],
  ])
})
