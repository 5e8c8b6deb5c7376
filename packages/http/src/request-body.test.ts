import { createHash } from 'node:crypto'
import { gzipSync } from 'node:zlib'
import { expect, it } from 'vitest'
import { isTextual, readRequestBytes, toRequestBody } from './request-body.js'

const URL_ = 'http://api.test/upload'

function post(body: RequestInit['body'], contentType?: string): Request {
  const request = new Request(URL_, { method: 'POST', body })
  // A Request gives strings and forms a content type of its own; these tests set the one they mean.
  if (contentType === undefined) request.headers.delete('content-type')
  else request.headers.set('content-type', contentType)
  return request
}

/** A request's body as decision input: its bytes, read as its content type says (as the boundary reads it). */
async function readBody(request: Request, consume = false, options: { json?: boolean } = {}) {
  const bytes = await readRequestBytes(request, consume)
  return toRequestBody(bytes, request.headers.get('content-type') ?? '', options)
}

const sha256 = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest('hex')

it('reads a JSON body as data, whatever the charset or case of its content type', async () => {
  expect(await readBody(post('{"model":"gpt-4o","n":1}', 'application/json'))).toEqual({
    json: { model: 'gpt-4o', n: 1 },
  })
  expect(await readBody(post('[1,2]', 'Application/JSON; charset=utf-8'))).toEqual({ json: [1, 2] })
  expect(await readBody(post('{"a":1}', 'application/vnd.api+json'))).toEqual({ json: { a: 1 } })
})

it('keeps a body that says JSON but does not parse as text, newline-delimited JSON included', async () => {
  expect(await readBody(post('{"model":', 'application/json'))).toEqual({ text: '{"model":' })
  expect(await readBody(post('{"a":1}\n{"a":2}\n', 'application/x-ndjson'))).toEqual({
    text: '{"a":1}\n{"a":2}\n',
  })
})

it('reads a body without a content type as JSON when it looks like JSON, else as text', async () => {
  expect(await readBody(post('  {"a":1}'))).toEqual({ json: { a: 1 } })
  expect(await readBody(post('[true]'))).toEqual({ json: [true] })
  expect(await readBody(post('{not json'))).toEqual({ text: '{not json' })
  expect(await readBody(post('hello'))).toEqual({ text: 'hello' })
  // Text is not JSON because it parses as JSON: only an object or array is taken for JSON.
  expect(await readBody(post('42'))).toEqual({ text: '42' })
})

it('keeps JSON in a text/plain body as text: the content type decides', async () => {
  expect(await readBody(post('{"a":1}', 'text/plain;charset=UTF-8'))).toEqual({ text: '{"a":1}' })
})

it('reads a form as its decoded fields, in order, with credential values redacted', async () => {
  const body = 'grant_type=client_credentials&client_secret=s3cr%21t&scope=a+b&scope=c'
  expect(await readBody(post(body, 'application/x-www-form-urlencoded;charset=UTF-8'))).toEqual({
    form: [
      ['grant_type', 'client_credentials'],
      ['client_secret', 'REDACTED'],
      ['scope', 'a b'],
      ['scope', 'c'],
    ],
  })
  // The content type a Request gives URLSearchParams itself.
  expect(await readBody(new Request(URL_, { method: 'POST', body: new URLSearchParams('q=1') }))).toEqual({
    form: [['q', '1']],
  })
})

it('takes no body from GET and HEAD, an absent body or an empty one', async () => {
  expect(await readBody(new Request(URL_))).toBeUndefined()
  expect(await readBody(new Request(URL_, { method: 'HEAD' }))).toBeUndefined()
  expect(await readBody(new Request(URL_, { method: 'POST' }))).toBeUndefined()
  expect(await readBody(post('', 'application/json'))).toBeUndefined()
  expect(await readBody(post(new Uint8Array(0), 'application/octet-stream'))).toBeUndefined()
})

it('hashes a binary body, with its size and its content type without parameters', async () => {
  const bytes = new Uint8Array([0, 1, 2, 0xff, 0xfe, 0x80])
  expect(await readBody(post(bytes, 'audio/wav; rate=16000'))).toEqual({
    sha256: sha256(bytes),
    bytes: 6,
    contentType: 'audio/wav',
  })
})

it('hashes a gzipped body as it is sent, even with a JSON content type (request bodies are not decoded)', async () => {
  const gzipped = gzipSync('{"a":1}')
  const request = post(gzipped, 'application/json')
  request.headers.set('content-encoding', 'gzip')
  expect(await readBody(request)).toEqual({
    sha256: sha256(gzipped),
    bytes: gzipped.byteLength,
    contentType: 'application/json',
  })
})

it('hashes a body that is not UTF-8 instead of decoding it with replacement characters', async () => {
  // Different bytes would otherwise key the same: both decode to U+FFFD.
  const a = await readBody(post(new Uint8Array([0x41, 0xff])))
  const b = await readBody(post(new Uint8Array([0x41, 0xfe])))
  expect(a).toEqual({ sha256: sha256(new Uint8Array([0x41, 0xff])), bytes: 2, contentType: '' })
  expect(b).not.toEqual(a)
  // Latin-1 text sent as text/plain keeps its bytes too.
  const latin1 = new Uint8Array([0x63, 0x61, 0x66, 0xe9])
  expect(await readBody(post(latin1, 'text/plain'))).toEqual({
    sha256: sha256(latin1),
    bytes: 4,
    contentType: 'text/plain',
  })
  // Valid UTF-8 outside ASCII is text.
  expect(await readBody(post('café ☕', 'text/plain'))).toEqual({ text: 'café ☕' })
})

it('keys the same multipart upload the same whatever its random boundary', async () => {
  const upload = () => {
    const form = new FormData()
    form.set('purpose', 'fine-tune')
    form.set(
      'file',
      new Blob([new Uint8Array([0xff, 0x00, 0x7f])], { type: 'application/octet-stream' }),
      'a.bin',
    )
    return new Request(URL_, { method: 'POST', body: form })
  }
  const [a, b] = [upload(), upload()]
  expect(a.headers.get('content-type')).not.toBe(b.headers.get('content-type'))
  const first = await readBody(a)
  expect(first).toMatchObject({
    contentType: 'multipart/form-data',
    sha256: expect.stringMatching(/^[0-9a-f]{64}$/),
  })
  expect(await readBody(b)).toEqual(first)
  // Another upload keys otherwise.
  const other = new FormData()
  other.set('purpose', 'batch')
  expect(await readBody(new Request(URL_, { method: 'POST', body: other }))).not.toEqual(first)
})

it('finds a quoted boundary, and hashes a multipart body that is text like any other', async () => {
  const body = (boundary: string) =>
    `--${boundary}\r\nContent-Disposition: form-data; name="a"\r\n\r\n1\r\n--${boundary}--\r\n`
  const quoted = await readBody(post(body('x y'), 'multipart/form-data; boundary="x y"'))
  const plain = await readBody(post(body('zzz'), 'multipart/form-data; boundary=zzz; charset=utf-8'))
  expect(quoted).toEqual(plain)
  expect(quoted).toMatchObject({ contentType: 'multipart/form-data' })
})

it('reads a clone by default, leaving the request to be sent, and the request itself with consume', async () => {
  const request = post('{"a":1}', 'application/json')
  expect(await readBody(request)).toEqual({ json: { a: 1 } })
  expect(request.bodyUsed).toBe(false)
  expect(await request.text()).toBe('{"a":1}')
  const consumed = post('{"a":1}', 'application/json')
  expect(await readBody(consumed, true)).toEqual({ json: { a: 1 } })
  expect(consumed.bodyUsed).toBe(true)
})

it('reads a streamed body that arrives in chunks split inside a character', async () => {
  const bytes = new TextEncoder().encode('{"city":"Zürich"}')
  const split = bytes.indexOf(0xc3) + 1
  const stream = new ReadableStream<Uint8Array>({
    start(controller) {
      controller.enqueue(bytes.subarray(0, split))
      controller.enqueue(bytes.subarray(split))
      controller.close()
    },
  })
  const request = new Request(URL_, {
    method: 'POST',
    body: stream,
    headers: { 'content-type': 'application/json' },
    duplex: 'half',
  } as RequestInit)
  expect(await readBody(request)).toEqual({ json: { city: 'Zürich' } })
})

it('tells textual content types from binary ones', () => {
  for (const type of [
    '',
    'text/plain',
    'TEXT/HTML; charset=utf-8',
    'application/json',
    'application/problem+json',
    'application/xml',
    'image/svg+xml',
    'application/x-www-form-urlencoded',
    'application/javascript',
    'application/x-ndjson',
    'text/event-stream',
  ])
    expect(isTextual(type), type).toBe(true)
  for (const type of [
    'application/octet-stream',
    'image/png',
    'audio/mpeg',
    'multipart/form-data',
    'application/pdf',
  ])
    expect(isTextual(type), type).toBe(false)
})

it('reads a JSON object sent as application/octet-stream as JSON when the request is a codec’s, and hashes it otherwise', async () => {
  const body = '{"anthropic_version":"bedrock-2023-05-31","max_tokens":8}'
  expect(await readBody(post(body, 'application/octet-stream'), false, { json: true })).toEqual({
    json: { anthropic_version: 'bedrock-2023-05-31', max_tokens: 8 },
  })
  expect(await readBody(post(body, 'application/octet-stream'))).toEqual({
    sha256: sha256(Buffer.from(body)),
    bytes: body.length,
    contentType: 'application/octet-stream',
  })
  // Bytes that are not JSON stay hashed.
  const binary = Uint8Array.of(0x7b, 0xff, 0x00)
  expect(await readBody(post(binary, 'application/octet-stream'), false, { json: true })).toMatchObject({
    sha256: sha256(binary),
  })
})
