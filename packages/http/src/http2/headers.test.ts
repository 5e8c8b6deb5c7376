import { sensitiveHeaders } from 'node:http2'
import { expect, it } from 'vitest'
import { responseHeadOf, sentHeadersOf, toRequest, urlOf } from './headers.js'

const origin = new URL('https://bedrock-runtime.us-east-1.amazonaws.com')

it('completes the sent headers as node:http2 does, the port always in the authority', () => {
  expect({ ...sentHeadersOf(origin, { ':path': '/x' }) }).toEqual({
    ':path': '/x',
    ':method': 'GET',
    ':authority': 'bedrock-runtime.us-east-1.amazonaws.com:443',
    ':scheme': 'https',
  })
  expect({ ...sentHeadersOf(new URL('http://127.0.0.1:8080')) }).toMatchObject({
    ':authority': '127.0.0.1:8080',
    ':scheme': 'http',
    ':path': '/',
  })
})

it('takes the authority from a host header when there is no :authority (the AWS SDK sends host)', () => {
  const sent = sentHeadersOf(origin, {
    ':method': 'POST',
    ':path': '/model/m/converse',
    host: 'example.test:8443',
  })
  expect(sent[':authority']).toBeUndefined()
  expect(urlOf(sent).href).toBe('https://example.test:8443/model/m/converse')
})

it('reads a path that starts with // as a path, not as another host', () => {
  expect(urlOf(sentHeadersOf(origin, { ':path': '//evil.test/x' })).host).toBe(origin.host)
})

it('turns a stream into a Request without pseudo-headers or connection headers, with its body', async () => {
  const sent = sentHeadersOf(origin, {
    ':method': 'post',
    ':path': '/model/m/invoke?x=1',
    host: origin.host,
    'content-length': '7',
    'content-type': 'application/json',
    'x-amz-date': '20260101T000000Z',
  })
  const request = toRequest(sent, Buffer.from('{"a":1}'), new AbortController().signal)
  expect(request.method).toBe('POST')
  expect(request.url).toBe(`${origin.origin}/model/m/invoke?x=1`)
  expect([...request.headers.keys()]).toEqual(['content-type', 'x-amz-date'])
  expect(await request.text()).toBe('{"a":1}')
  const get = toRequest(sentHeadersOf(origin), Buffer.alloc(0), new AbortController().signal)
  expect(get.body).toBeNull()
})

it('gives a response’s head as node:http2 does: :status first, set-cookie as a list, the raw pairs', () => {
  const headers = new Headers({ 'content-type': 'application/json' })
  headers.append('set-cookie', 'a=1')
  headers.append('set-cookie', 'b=2')
  const { headers: head, raw } = responseHeadOf(new Response('{}', { status: 201, headers }))
  expect(head).toEqual({
    ':status': 201,
    'content-type': 'application/json',
    'set-cookie': ['a=1', 'b=2'],
    [sensitiveHeaders]: [],
  })
  expect(Object.keys(head)[0]).toBe(':status')
  expect(raw).toEqual([
    ':status',
    '201',
    'content-type',
    'application/json',
    'set-cookie',
    'a=1',
    'set-cookie',
    'b=2',
  ])
})
