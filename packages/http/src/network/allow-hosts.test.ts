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

it('matches a wildcard at any depth below its domain, and only there', () => {
  const patterns = ['*.svc.local']
  expect(matchesHost('a.b.svc.local', 80, patterns)).toBe(true)
  expect(matchesHost('evilsvc.local', 80, patterns)).toBe(false)
  expect(matchesHost('svc.local.evil.test', 80, patterns)).toBe(false)
  expect(matchesHost('x.svc.local', 80, ['*.svc.local:8080'])).toBe(false)
  expect(matchesHost('x.svc.local', 8080, ['*.svc.local:8080'])).toBe(true)
})

it('reads patterns case-insensitively, trimmed, with IPv6 hosts in brackets', () => {
  expect(matchesHost('db.internal', 5432, [' DB.Internal:5432 '])).toBe(true)
  expect(matchesHost('[::1]', 6379, ['[::1]'])).toBe(true)
  expect(matchesHost('::1', 6379, ['[::1]:6380'])).toBe(false)
  expect(matchesHost('fe80::1', 9200, ['[FE80::1]:9200'])).toBe(true)
})

it('matches a host with no known port by name only: a pattern with a port does not match it', () => {
  expect(matchesHost('db.internal', undefined, ['db.internal'])).toBe(true)
  expect(matchesHost('db.internal', undefined, ['db.internal:5432'])).toBe(false)
  expect(matchesHost('db.internal', undefined, [/^db\.internal$/])).toBe(true)
  expect(matchesHost('db.internal', 5432, [/^db\.internal$/])).toBe(false)
})

it('tests a RegExp on the lower-cased host and port, IPv6 without brackets', () => {
  expect(matchesHost('DB.Internal', 5432, [/^db\.internal:5432$/])).toBe(true)
  expect(matchesHost('[::1]', 8080, [/^::1:8080$/])).toBe(true)
  expect(matchesHost('anything', 1, [])).toBe(false)
})

it('accepts host names, IPs, ports and wildcards, and refuses schemes, paths, bare IPv6 and blanks', () => {
  expect(() =>
    assertHostPatterns([
      'db.internal',
      'db_1.internal:5432',
      '10.0.0.1:9200',
      '[::1]:8080',
      '*.svc.local',
      /x/,
    ]),
  ).not.toThrow()
  for (const bad of [
    '',
    ' ',
    '::1',
    'db.internal/q',
    'db.internal:',
    'db internal',
    '*',
    '*.',
    'http://db.internal',
    null,
  ])
    expect(() => assertHostPatterns([bad]), String(bad)).toThrow(/Invalid allowHosts entry/)
})
