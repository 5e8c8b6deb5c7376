import http2, { type ClientHttp2Session, type OutgoingHttpHeaders } from 'node:http2'
import type { AddressInfo } from 'node:net'
import type { Duplex } from 'node:stream'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { openTapedStream } from './open-stream.js'
import type { TapedHttp2Stream } from './taped-stream.js'

// The taped stream is held to node:http2's own behaviour: each scenario runs against a real
// stream on a loopback h2c server and against a taped one answered with the same response, and
// the events a caller sees must be the same.
let server: http2.Http2Server
let session: ClientHttp2Session
let origin: URL

beforeAll(async () => {
  server = http2.createServer(async (req, res) => {
    let length = 0
    try {
      for await (const chunk of req) length += (chunk as Buffer).length
    } catch {
      return // the client reset the stream
    }
    res.setHeader('set-cookie', ['a=1', 'b=2'])
    res.writeHead(200, { 'content-type': 'text/plain', 'x-id': 'abc' })
    if (req.url === '/slow') res.write('partial')
    else res.end(`hello ${req.method} ${length}`)
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  origin = new URL(`http://127.0.0.1:${(server.address() as AddressInfo).port}`)
  session = http2.connect(origin)
})
afterAll(async () => {
  session.destroy()
  await new Promise((resolve) => server.close(resolve))
})

/** The response the server above gives, as a fetch `Response`. */
function sameAnswer(path: string, method: string, length: number): Response {
  const headers = new Headers({ 'content-type': 'text/plain', 'x-id': 'abc' })
  headers.append('set-cookie', 'a=1')
  headers.append('set-cookie', 'b=2')
  const body =
    path === '/slow'
      ? new ReadableStream({ start: (c) => c.enqueue(new TextEncoder().encode('partial')) })
      : `hello ${method} ${length}`
  return new Response(body, { status: 200, headers })
}

type Open = (headers: OutgoingHttpHeaders, options?: http2.ClientSessionRequestOptions) => Duplex

const openReal: Open = (headers, options) => session.request(headers, options)
const openTaped: Open = (headers, options = {}) =>
  openTapedStream({
    session: {},
    origin,
    headers,
    options,
    id: 1,
    answer: async (request) =>
      sameAnswer(new URL(request.url).pathname, request.method, (await request.arrayBuffer()).byteLength),
    send: () => {
      throw new Error('a taped stream never sends')
    },
    onActivity: () => {},
  })

/** What a caller sees: events in order (data joined), the response's status and headers, rstCode. */
function watch(stream: Duplex, settle: (stream: Duplex, log: string[]) => void = () => {}) {
  const log: string[] = []
  let text = ''
  let headers: Record<string, unknown> = {}
  stream.on('response', (h: Record<string, unknown>) => {
    const { date: _date, ...rest } = h
    headers = rest
    log.push(`response ${h[':status']}`)
    settle(stream, log)
  })
  stream.on('data', (chunk: Buffer) => {
    if (text === '') log.push('data')
    text += chunk
  })
  for (const name of ['end', 'aborted']) stream.on(name, () => log.push(name))
  stream.on('error', (error: Error & { code?: string }) => log.push(`error ${error.code}`))
  return new Promise<{ log: string[]; text: string; headers: Record<string, unknown>; rstCode: number }>(
    (resolve) =>
      stream.on('close', () => {
        const rstCode = (stream as TapedHttp2Stream).rstCode
        resolve({ log: [...log, `close ${rstCode}`], text, headers, rstCode })
      }),
  )
}

async function both(run: (open: Open) => Promise<unknown>) {
  const real = await run(openReal)
  const taped = await run(openTaped)
  expect(taped).toEqual(real)
  return taped
}

describe('a taped stream behaves as a node:http2 stream', () => {
  it('a GET (its writable side ended at once): response with :status and headers, the body, end, close 0', async () => {
    const seen = await both((open) => watch(open({ ':path': '/hello' })))
    expect(seen).toEqual({
      log: ['response 200', 'data', 'end', 'close 0'],
      text: 'hello GET 0',
      headers: {
        ':status': 200,
        'content-type': 'text/plain',
        'x-id': 'abc',
        'set-cookie': ['a=1', 'b=2'],
        [http2.sensitiveHeaders]: [],
      },
      rstCode: 0,
    })
  })

  it('a POST answers once its body has ended', async () => {
    const seen = await both((open) => {
      const stream = open({ ':method': 'POST', ':path': '/hello' })
      const watched = watch(stream)
      stream.write('ab')
      setTimeout(() => stream.end('cde'), 10)
      return watched
    })
    expect(seen).toMatchObject({ text: 'hello POST 5' })
  })

  it('close() after the response ends the body where it stopped, without an error: end, close 0', async () => {
    const seen = await both((open) =>
      watch(open({ ':path': '/slow' }), (stream) => {
        stream.once('data', () => (stream as TapedHttp2Stream).close())
      }),
    )
    expect(seen).toMatchObject({ log: ['response 200', 'data', 'end', 'close 0'] })
  })

  it('close(code) before the body has ended: aborted, an ERR_HTTP2_STREAM_ERROR, close with the code', async () => {
    const seen = await both(async (open) => {
      const stream = open({ ':method': 'POST', ':path': '/hello' }) as TapedHttp2Stream
      const watched = watch(stream)
      stream.write('x')
      setTimeout(() => stream.close(http2.constants.NGHTTP2_INTERNAL_ERROR), 10)
      return watched
    })
    expect(seen).toMatchObject({ log: ['aborted', 'error ERR_HTTP2_STREAM_ERROR', 'close 2'] })
  })

  it('an aborted signal fails the stream with an AbortError', async () => {
    const seen = await both(async (open) => {
      const controller = new AbortController()
      const stream = open({ ':method': 'POST', ':path': '/hello' }, { signal: controller.signal })
      const watched = watch(stream)
      setTimeout(() => controller.abort(), 10)
      return watched
    })
    expect(seen).toMatchObject({ log: ['aborted', 'error ABORT_ERR', 'close 8'] })
  })

  it('setTimeout emits timeout after that long without a chunk', async () => {
    const timedOut = await both(
      (open) =>
        new Promise((resolve) => {
          const stream = open({ ':path': '/slow' }) as TapedHttp2Stream
          stream.setTimeout(50, () => {
            stream.close(http2.constants.NGHTTP2_CANCEL)
            resolve('timeout')
          })
          stream.resume()
        }),
    )
    expect(timedOut).toBe('timeout')
  })

  it('reports its sent headers as node:http2 completes them', async () => {
    const headers = await both(async (open) => {
      const stream = open({ ':path': '/hello', 'x-a': 'b' }) as TapedHttp2Stream
      const sent = { ...stream.sentHeaders }
      stream.resume()
      await new Promise((resolve) => stream.on('close', resolve))
      return sent
    })
    expect(headers).toEqual({
      ':path': '/hello',
      'x-a': 'b',
      ':method': 'GET',
      ':authority': origin.host,
      ':scheme': 'http',
    })
  })
})

it('fails with the answer’s error, before or during the body', async () => {
  const failing = (answer: () => Promise<Response>) =>
    openTapedStream({
      session: {},
      origin,
      headers: {},
      options: {},
      id: 1,
      answer,
      send: () => {
        throw new Error('unused')
      },
      onActivity: () => {},
    })
  const refused = new Error('refused')
  const early = failing(() => Promise.reject(refused))
  const earlyError = await new Promise((resolve) => early.on('error', resolve))
  expect(earlyError).toBe(refused)
  const cut = new TypeError('terminated')
  let pulls = 0
  const late = failing(
    async () =>
      new Response(
        new ReadableStream({
          pull(c) {
            if (pulls++ === 0) c.enqueue(new TextEncoder().encode('first'))
            else c.error(cut)
          },
        }),
      ),
  )
  const chunks: string[] = []
  late.on('data', (chunk: Buffer) => chunks.push(String(chunk)))
  const lateError = await new Promise((resolve) => late.on('error', resolve))
  expect(lateError).toBe(cut)
  expect(chunks).toEqual(['first'])
  expect(late.rstCode).toBe(http2.constants.NGHTTP2_INTERNAL_ERROR)
})

it('a body that fails right after its chunks hands an async iterator every chunk, then the error', async () => {
  const cut = new TypeError('terminated')
  let pulls = 0
  const stream = openTapedStream({
    session: {},
    origin,
    headers: {},
    options: {},
    id: 1,
    answer: async () =>
      new Response(
        new ReadableStream({
          pull(c) {
            if (pulls < 3) c.enqueue(new TextEncoder().encode(`chunk ${pulls++};`))
            else c.error(cut)
          },
        }),
      ),
    send: () => {
      throw new Error('unused')
    },
    onActivity: () => {},
  })
  let text = ''
  const error = await (async () => {
    for await (const chunk of stream) text += chunk
  })().catch((e: unknown) => e)
  expect(text).toBe('chunk 0;chunk 1;chunk 2;')
  expect(error).toBe(cut)
})

it('cancels the answer when the caller gives up: its signal aborts', async () => {
  let signal: AbortSignal | undefined
  const stream = openTapedStream({
    session: {},
    origin,
    headers: {},
    options: {},
    id: 1,
    answer: (request) => {
      signal = request.signal
      return new Promise(() => {})
    },
    send: () => {
      throw new Error('unused')
    },
    onActivity: () => {},
  })
  await new Promise((resolve) => setTimeout(resolve, 5))
  expect(signal?.aborted).toBe(false)
  stream.close(http2.constants.NGHTTP2_CANCEL)
  await new Promise((resolve) => stream.on('close', resolve))
  expect(signal?.aborted).toBe(true)
})
