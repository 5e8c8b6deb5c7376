import { expect, it } from 'vitest'
import { classifyUrl, matchesEndpointHost } from './endpoints.js'

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
