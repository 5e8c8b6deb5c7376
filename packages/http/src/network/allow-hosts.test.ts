import { isConfigError } from '@agent-tape/core/internal'
import { expect, it } from 'vitest'
import { assertHostPatterns, matchesHost } from './allow-hosts.js'

it('matches a host, a host and port, a wildcard suffix and a RegExp on host:port', () => {
  const patterns = ['db.internal', 'cache.internal:6379', '*.svc.local', /^10\.0\.\d+\.\d+:9200$/]
  expect(matchesHost('db.internal', 5432, patterns)).toBe(true)
  expect(matchesHost('DB.Internal', 5432, patterns)).toBe(true)
  expect(matchesHost('cache.internal', 6379, patterns)).toBe(true)
  expect(matchesHost('cache.internal', 6380, patterns)).toBe(false)
  expect(matchesHost('search.svc.local', 443, patterns)).toBe(true)
  expect(matchesHost('svc.local', 443, patterns)).toBe(false)
  expect(matchesHost('10.0.3.7', 9200, patterns)).toBe(true)
  expect(matchesHost('api.openai.com', 443, patterns)).toBe(false)
  expect(matchesHost('::1', 8080, ['[::1]:8080'])).toBe(true)
})

it('refuses an entry that is a URL or not a host, saying how to write it', () => {
  const error = (() => {
    try {
      assertHostPatterns(['https://db.internal/path'])
    } catch (e) {
      return e
    }
  })()
  expect(isConfigError(error)).toBe(true)
  expect((error as Error).message).toContain('Invalid allowHosts entry "https://db.internal/path"')
  expect(() => assertHostPatterns([42])).toThrow(/Invalid allowHosts entry 42/)
  expect(() => assertHostPatterns(['db.internal:5432', '*.internal', /x/])).not.toThrow()
})
