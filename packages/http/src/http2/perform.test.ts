import http2, { type ClientHttp2Session } from 'node:http2'
import type { AddressInfo } from 'node:net'
import { gzipSync } from 'node:zlib'
import { afterAll, beforeAll, expect, it } from 'vitest'
import { performOverHttp2, type SendHttp2 } from './perform.js'

let server: http2.Http2Server
let origin: string
let session: ClientHttp2Session
const send: SendHttp2 = (headers, options) => session.request(headers, options)

beforeAll(async () => {
  server = http2.createServer(async (req, res) => {
    let body = ''
    for await (const chunk of req) body += chunk
    if (req.url === '/gzip') {
      res.writeHead(200, { 'content-type': 'application/json', 'content-encoding': 'gzip' })
      res.end(gzipSync('{"packed":true}'))
    } else if (req.url === '/empty') {
      res.writeHead(204, { 'x-id': 'empty' })
      res.end()
    } else if (req.url === '/slow') {
      res.writeHead(200, { 'content-type': 'text/plain' })
      res.write('first')
    } else {
      res.setHeader('set-cookie', ['a=1', 'b=2'])
      res.writeHead(201, { 'content-type': 'application/json', 'x-id': 'abc' })
      res.end(JSON.stringify({ method: req.method, path: req.url, body, type: req.headers['content-type'] }))
    }
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  session = http2.connect(origin)
})
afterAll(async () => {
  session.destroy()
  await new Promise((resolve) => server.close(resolve))
})

it('sends the request over the session and answers as fetch would: status, headers, body', async () => {
  const response = await performOverHttp2(
    new Request(`${origin}/items?page=2`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{"a":1}',
    }),
    send,
  )
  expect(response.status).toBe(201)
  expect(response.headers.get('x-id')).toBe('abc')
  expect(response.headers.getSetCookie()).toEqual(['a=1', 'b=2'])
  expect(await response.json()).toEqual({
    method: 'POST',
    path: '/items?page=2',
    body: '{"a":1}',
    type: 'application/json',
  })
})

it('decodes a compressed body, as fetch does, and drops the headers that described the encoding', async () => {
  const response = await performOverHttp2(new Request(`${origin}/gzip`), send)
  expect(response.headers.get('content-encoding')).toBeNull()
  expect(await response.json()).toEqual({ packed: true })
})

it('gives a body-less status no body', async () => {
  const response = await performOverHttp2(new Request(`${origin}/empty`), send)
  expect(response.status).toBe(204)
  expect(response.body).toBeNull()
  expect(response.headers.get('x-id')).toBe('empty')
})

it('fails with the stream’s error when the origin cannot be reached', async () => {
  const closed = http2.connect('http://127.0.0.1:1')
  closed.on('error', () => {})
  const error = await performOverHttp2(new Request('http://127.0.0.1:1/x'), (h, o) =>
    closed.request(h, o),
  ).catch((e: unknown) => e)
  expect(error).toMatchObject({ code: 'ERR_HTTP2_STREAM_CANCEL', cause: { code: 'ECONNREFUSED' } })
})

it('resets the stream when the request is aborted, before or during the body', async () => {
  const before = new AbortController()
  before.abort(new Error('not now'))
  await expect(performOverHttp2(new Request(`${origin}/`, { signal: before.signal }), send)).rejects.toThrow(
    'not now',
  )
  const during = new AbortController()
  const response = await performOverHttp2(new Request(`${origin}/slow`, { signal: during.signal }), send)
  const reader = response.body!.getReader()
  expect(new TextDecoder().decode((await reader.read()).value)).toBe('first')
  during.abort()
  await expect(reader.read()).rejects.toThrow()
})

it('resets the stream when the body is cancelled', async () => {
  const streams: http2.ClientHttp2Stream[] = []
  const response = await performOverHttp2(new Request(`${origin}/slow`), (h, o) => {
    const stream = session.request(h, o)
    streams.push(stream)
    return stream
  })
  await response.body!.cancel()
  await new Promise((resolve) => streams[0]!.once('close', resolve))
  expect(streams[0]!.rstCode).toBe(http2.constants.NGHTTP2_CANCEL)
})
