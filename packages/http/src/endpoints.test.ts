import { expect, it } from 'vitest'
import {
  classifyUrl,
  isLoopbackHost,
  matchesEndpointHost,
  passesThrough,
  validateEndpointPattern,
} from './endpoints.js'

it('tells whether a connection to host:port can carry requests to a model endpoint', () => {
  const endpoints = [
    'http://127.0.0.1:8080/v1',
    'http://localhost:*',
    /\.internal:9000\//,
    (url: URL) => url.hostname === 'llm.test',
  ]
  expect(matchesEndpointHost('127.0.0.1', 8080, endpoints)).toBe(true)
  expect(matchesEndpointHost('127.0.0.1', 8081, endpoints)).toBe(false)
  expect(matchesEndpointHost('localhost', 3000, endpoints)).toBe(true)
  expect(matchesEndpointHost('gpu.internal', 9000, endpoints)).toBe(true)
  expect(matchesEndpointHost('llm.test', 443, endpoints)).toBe(true)
  expect(matchesEndpointHost('db.test', 5432, endpoints)).toBe(false)
  expect(matchesEndpointHost('127.0.0.1', 80, ['http://127.0.0.1/v1'])).toBe(true)
  expect(matchesEndpointHost('::1', 8080, ['http://[::1]:8080'])).toBe(true)
  expect(matchesEndpointHost('127.0.0.1', 8080, [])).toBe(false)
})

it('lets allowed hosts pass through, but never a model host', () => {
  const allow = ['db.internal', 'api.openai.com']
  expect(classifyUrl(new URL('http://db.internal:5432/q'), [], allow)).toBe('allowed')
  expect(classifyUrl(new URL('https://api.openai.com/v1/chat/completions'), [], allow)).toBe('model')
  expect(classifyUrl(new URL('https://api.example.com/v1'), [], allow)).toBe('external')
  expect(classifyUrl(new URL('http://127.0.0.1:3000/'), [], allow)).toBe('loopback')
})

it('takes a base URL as a prefix of whole path segments, with or without a trailing slash', () => {
  const model = (href: string, pattern: string) => classifyUrl(new URL(href), [pattern]) === 'model'
  const base = 'https://gateway.example.com/openai'
  expect(model('https://gateway.example.com/openai/v1/chat/completions', base)).toBe(true)
  expect(model('https://gateway.example.com/openai', base)).toBe(true)
  expect(model('https://gateway.example.com/openai/v1/chat/completions', `${base}/`)).toBe(true)
  expect(model('https://gateway.example.com/openai-v2/chat/completions', base)).toBe(false)
  expect(model('https://gateway.example.com/other/openai/x', base)).toBe(false)
  // A query on the request or the pattern plays no part; the origin (scheme, host, port) must be the same.
  expect(model('https://gateway.example.com/openai/x?api-version=1', `${base}?ignored=1`)).toBe(true)
  expect(model('http://gateway.example.com/openai/x', base)).toBe(false)
  expect(model('https://gateway.example.com:8443/openai/x', base)).toBe(false)
  expect(model('https://gateway.example.com:443/openai/x', 'https://GATEWAY.example.com:443/openai')).toBe(
    true,
  )
})

it('matches any port with host:*, on that host and scheme only, with an optional path', () => {
  const model = (href: string, pattern: string) => classifyUrl(new URL(href), [pattern]) === 'model'
  expect(model('http://127.0.0.1:52341/v1/chat/completions', 'http://127.0.0.1:*')).toBe(true)
  expect(model('http://127.0.0.1/v1', 'http://127.0.0.1:*')).toBe(true)
  expect(model('https://127.0.0.1:52341/v1', 'http://127.0.0.1:*')).toBe(false)
  expect(model('http://127.0.0.2:52341/v1', 'http://127.0.0.1:*')).toBe(false)
  expect(model('http://localhost:3000/v1/messages', 'http://localhost:*/v1')).toBe(true)
  expect(model('http://localhost:3000/v2/messages', 'http://localhost:*/v1')).toBe(false)
})

it('matches any port on an IPv6 host, and a scheme written in capitals, as it validates them', () => {
  // Both patterns pass validateEndpointPattern; each once failed every request with "Invalid URL".
  expect(validateEndpointPattern('http://[::1]:*')).toBeUndefined()
  expect(classifyUrl(new URL('http://[::1]:5173/v1/chat/completions'), ['http://[::1]:*'])).toBe('model')
  expect(classifyUrl(new URL('http://[::2]:5173/v1'), ['http://[::1]:*/v1'])).toBe('external')
  expect(matchesEndpointHost('::1', 5173, ['http://[::1]:*'])).toBe(true)
  expect(matchesEndpointHost('[::1]', 5173, ['http://[::1]:*'])).toBe(true)
  expect(matchesEndpointHost('127.0.0.1', 5173, ['http://[::1]:*'])).toBe(false)
  expect(validateEndpointPattern('HTTP://LOCALHOST:*')).toBeUndefined()
  expect(classifyUrl(new URL('http://localhost:3000/v1'), ['HTTP://LOCALHOST:*'])).toBe('model')
  expect(matchesEndpointHost('localhost', 3000, ['HTTP://LOCALHOST:*'])).toBe(true)
})

it('tests a RegExp against the whole href, and asks a function about the parsed URL', () => {
  const url = new URL('https://llm.corp.example/v1/chat/completions?x=1')
  expect(classifyUrl(url, [/corp\.example\/v1\//])).toBe('model')
  expect(classifyUrl(url, [/\?x=1$/])).toBe('model')
  expect(classifyUrl(url, [(u) => u.searchParams.get('x') === '1'])).toBe('model')
  expect(classifyUrl(url, [(u) => u.port === '8080'])).toBe('external')
})

it('knows the providers and Azure OpenAI hosts without configuration, by exact host', () => {
  expect(classifyUrl(new URL('https://api.anthropic.com/v1/messages'), [])).toBe('model')
  expect(classifyUrl(new URL('https://my-res.openai.azure.com/openai/deployments/x'), [])).toBe('model')
  expect(classifyUrl(new URL('https://openai.azure.com.evil.test/x'), [])).toBe('external')
  expect(classifyUrl(new URL('https://api.openai.com.evil.test/v1'), [])).toBe('external')
  expect(classifyUrl(new URL('https://API.OpenAI.com/v1/models'), [])).toBe('model')
})

it('tells loopback hosts: localhost and its subdomains, 127.0.0.0/8 and ::1', () => {
  for (const host of ['localhost', 'app.localhost', '127.0.0.1', '127.9.8.7', '::1', '[::1]'])
    expect(isLoopbackHost(host), host).toBe(true)
  for (const host of ['localhost.example.com', 'mylocalhost', '128.0.0.1', '10.0.0.1', '::2', '0.0.0.0'])
    expect(isLoopbackHost(host), host).toBe(false)
  expect(classifyUrl(new URL('http://[0:0:0:0:0:0:0:1]:8080/x'), [])).toBe('loopback')
})

it('gives allowed hosts and taped hosts their class by host and the default port of the scheme', () => {
  expect(classifyUrl(new URL('https://db.internal/q'), [], ['db.internal:443'])).toBe('allowed')
  expect(classifyUrl(new URL('http://db.internal/q'), [], ['db.internal:443'])).toBe('external')
  // A loopback host listed in tapeHosts is taped instead of passing through.
  expect(classifyUrl(new URL('http://127.0.0.1:9200/_search'), [], [], ['127.0.0.1:9200'])).toBe('external')
  expect(classifyUrl(new URL('http://127.0.0.1:9201/_search'), [], [], ['127.0.0.1:9200'])).toBe('loopback')
  // allowHosts wins over tapeHosts, a model endpoint over both.
  expect(classifyUrl(new URL('http://127.0.0.1:9200/'), [], ['127.0.0.1'], ['127.0.0.1'])).toBe('allowed')
  expect(classifyUrl(new URL('http://127.0.0.1:9200/'), ['http://127.0.0.1:*'], ['127.0.0.1'])).toBe('model')
  expect(passesThrough('loopback')).toBe(true)
  expect(passesThrough('allowed')).toBe(true)
  expect(passesThrough('model')).toBe(false)
  expect(passesThrough('external')).toBe(false)
})

it('tells a socket to a default port from one to another port when a pattern names none', () => {
  expect(matchesEndpointHost('gateway.example.com', 443, ['https://gateway.example.com/openai'])).toBe(true)
  expect(matchesEndpointHost('gateway.example.com', 8443, ['https://gateway.example.com/openai'])).toBe(false)
  expect(matchesEndpointHost('GATEWAY.example.com', undefined, ['http://gateway.example.com'])).toBe(true)
  // A function is asked about the origin's root, by http and by https.
  const seen: string[] = []
  matchesEndpointHost('h.test', 81, [
    (url) => {
      seen.push(url.href)
      return false
    },
  ])
  expect(seen).toEqual(['http://h.test:81/', 'https://h.test:81/'])
})

it('refuses a pattern that is not an http(s) base URL, saying what is expected', () => {
  expect(validateEndpointPattern('http://127.0.0.1:8080/v1')).toBeUndefined()
  expect(validateEndpointPattern('http://127.0.0.1:*/v1')).toBeUndefined()
  expect(validateEndpointPattern(/x/)).toBeUndefined()
  expect(validateEndpointPattern(() => true)).toBeUndefined()
  expect(validateEndpointPattern('ws://127.0.0.1:8080')).toBe('ws://127.0.0.1:8080 is not an http(s) URL')
  // Without a scheme, "localhost:8080" parses as a URL of scheme "localhost:".
  expect(validateEndpointPattern('localhost:8080')).toBe('localhost:8080 is not an http(s) URL')
  expect(validateEndpointPattern('127.0.0.1:8080')).toBe(
    '"127.0.0.1:8080" is not a URL (expected a base URL such as "http://127.0.0.1:8080/v1")',
  )
})
