import { type Dispatcher, request as undiciRequest } from 'undici7'
import { describe, expect, it } from 'vitest'
import { type DispatchHandler, deliverError, deliverResponse } from './deliver-response.js'

const URL_ = 'http://api.test/v1/things'

/** A dispatcher that answers every request with `respond()`, as the boundary's guard does. */
function answering(respond: () => Response) {
  const delivered: Promise<void>[] = []
  const dispatcher = {
    dispatch(_options: unknown, handler: DispatchHandler) {
      delivered.push(deliverResponse(handler, respond()))
      return true
    },
  } as unknown as Dispatcher
  return { dispatcher, delivered }
}

/** Node's own fetch, with a dispatcher of its own (its types know undici 6's). */
const fetchThrough = (dispatcher: Dispatcher) => fetch(URL_, { dispatcher } as unknown as RequestInit)

/** A body that arrives in `chunks`, and says how far it was read and whether it was cancelled. */
function source(chunks: readonly (string | Uint8Array)[], options: { failAfter?: number } = {}) {
  const state = { pulled: 0, cancelled: undefined as unknown }
  const encoder = new TextEncoder()
  const stream = new ReadableStream<Uint8Array>({
    pull(controller) {
      if (options.failAfter !== undefined && state.pulled === options.failAfter) {
        controller.error(new Error('upstream reset'))
        return
      }
      const chunk = chunks[state.pulled++]
      if (chunk === undefined) controller.close()
      else controller.enqueue(typeof chunk === 'string' ? encoder.encode(chunk) : chunk)
    },
    cancel(reason) {
      state.cancelled = reason ?? 'cancelled'
    },
  })
  return { stream, state }
}

function headersWithDuplicates(): Headers {
  const headers = new Headers({ 'content-type': 'application/json', 'x-request-id': 'req_1' })
  headers.append('set-cookie', 'a=1; Path=/')
  headers.append('set-cookie', 'b=2; Path=/')
  headers.append('x-tag', 'one')
  headers.append('x-tag', 'two')
  return headers
}

describe('through the handler API of Node’s fetch and undici 7 (onHeaders, onData, onComplete)', () => {
  it("answers Node's fetch with the status, headers and body, chunks split inside a character included", async () => {
    const bytes = new TextEncoder().encode('{"city":"Zürich"}')
    const split = bytes.indexOf(0xc3) + 1
    const body = source([bytes.subarray(0, split), bytes.subarray(split)])
    const { dispatcher } = answering(
      () =>
        new Response(body.stream, { status: 201, statusText: 'Created', headers: headersWithDuplicates() }),
    )
    const response = await fetchThrough(dispatcher)
    expect(response.status).toBe(201)
    expect(response.statusText).toBe('Created')
    expect(response.headers.get('x-request-id')).toBe('req_1')
    expect(response.headers.get('x-tag')).toBe('one, two')
    expect(response.headers.getSetCookie()).toEqual(['a=1; Path=/', 'b=2; Path=/'])
    expect(await response.json()).toEqual({ city: 'Zürich' })
  })

  it('answers undici.request with every header, repeated set-cookie headers as a list', async () => {
    const { dispatcher, delivered } = answering(
      () => new Response('hello', { status: 200, headers: headersWithDuplicates() }),
    )
    const response = await undiciRequest(URL_, { dispatcher })
    expect(response.statusCode).toBe(200)
    expect(response.headers['set-cookie']).toEqual(['a=1; Path=/', 'b=2; Path=/'])
    expect(response.headers['x-tag']).toBe('one, two')
    expect(await response.body.text()).toBe('hello')
    await Promise.all(delivered)
  })

  it('answers with an empty body when the response has none', async () => {
    const { dispatcher } = answering(() => new Response(null, { status: 204 }))
    const response = await fetchThrough(dispatcher)
    expect(response.status).toBe(204)
    expect(await response.text()).toBe('')
    const asked = await undiciRequest(URL_, { dispatcher: answering(() => new Response(null)).dispatcher })
    expect(asked.statusCode).toBe(200)
    expect(await asked.body.text()).toBe('')
  })

  it('fails the body when the response body fails mid-way, after the chunks before it', async () => {
    const body = source(['{"partial":'], { failAfter: 1 })
    const { dispatcher } = answering(() => new Response(body.stream))
    const response = await undiciRequest(URL_, { dispatcher })
    expect(response.statusCode).toBe(200)
    await expect(response.body.text()).rejects.toThrow('upstream reset')
  })

  it('stops reading while the client does not read, and reads on when it does', async () => {
    const chunk = new Uint8Array(64 * 1024).fill(97)
    const body = source(Array.from({ length: 100 }, () => chunk))
    const { dispatcher, delivered } = answering(() => new Response(body.stream))
    const response = await undiciRequest(URL_, { dispatcher })
    await new Promise((resolve) => setTimeout(resolve, 50))
    // Paused once the client's buffer is full: not the 100 chunks there are.
    expect(body.state.pulled).toBeLessThan(10)
    expect((await response.body.arrayBuffer()).byteLength).toBe(100 * chunk.byteLength)
    await Promise.all(delivered)
  })

  it('cancels the response body when the client aborts mid-way', async () => {
    const body = source(Array.from({ length: 1000 }, () => new Uint8Array(64 * 1024)))
    const { dispatcher, delivered } = answering(() => new Response(body.stream))
    const abort = new AbortController()
    const response = await undiciRequest(URL_, { dispatcher, signal: abort.signal })
    abort.abort(new Error('the caller gave up'))
    await expect(response.body.text()).rejects.toThrow()
    await Promise.all(delivered)
    expect(body.state.cancelled).toBeDefined()
    expect(body.state.pulled).toBeLessThan(1000)
  })

  it('fails the request with an error delivered to onError', async () => {
    const dispatcher = {
      dispatch(_options: unknown, handler: DispatchHandler) {
        deliverError(handler, new Error('refused by the tape'))
        return true
      },
    } as unknown as Dispatcher
    await expect(undiciRequest(URL_, { dispatcher })).rejects.toThrow('refused by the tape')
  })
})

/** A handler in undici 8's API that writes down what it is told. */
function controllerHandler(options: { pauseAt?: number; abortAtStart?: boolean } = {}) {
  const events: string[] = []
  const chunks: string[] = []
  let controller: Parameters<NonNullable<DispatchHandler['onRequestStart']>>[0] | undefined
  let headers: Record<string, string | string[]> = {}
  let settled: () => void = () => {}
  const done = new Promise<void>((resolve) => {
    settled = resolve
  })
  const handler: DispatchHandler = {
    onRequestStart(c) {
      controller = c
      events.push('start')
      if (options.abortAtStart) c.abort(new Error('aborted before the answer'))
    },
    onResponseStart(_c, status, received, statusText) {
      headers = received
      events.push(`response ${status} ${statusText}`)
    },
    onResponseData(c, chunk) {
      chunks.push(chunk.toString())
      events.push('data')
      if (chunks.length === options.pauseAt) c.pause()
    },
    onResponseEnd() {
      events.push('end')
      settled()
    },
    onResponseError(_c, error) {
      events.push(`error ${error.message}`)
      settled()
    },
  }
  return { handler, events, chunks, done, headers: () => headers, controller: () => controller! }
}

describe('through the handler API of undici 8 (onResponseStart, onResponseData, with a controller)', () => {
  it('gives the status, the headers as an object with repeated set-cookie headers as a list, and the chunks', async () => {
    const client = controllerHandler()
    const response = new Response(source(['a', 'b']).stream, {
      status: 200,
      statusText: 'OK',
      headers: headersWithDuplicates(),
    })
    await deliverResponse(client.handler, response)
    expect(client.events).toEqual(['start', 'response 200 OK', 'data', 'data', 'end'])
    expect(client.chunks).toEqual(['a', 'b'])
    expect(client.headers()).toMatchObject({
      'content-type': 'application/json',
      'set-cookie': ['a=1; Path=/', 'b=2; Path=/'],
      'x-tag': 'one, two',
    })
  })

  it('waits while the controller is paused, and goes on when it is resumed', async () => {
    const client = controllerHandler({ pauseAt: 1 })
    const delivering = deliverResponse(client.handler, new Response(source(['a', 'b', 'c']).stream))
    await new Promise((resolve) => setTimeout(resolve, 20))
    expect(client.chunks).toEqual(['a'])
    expect(client.controller().paused).toBe(true)
    client.controller().resume()
    await delivering
    expect(client.chunks).toEqual(['a', 'b', 'c'])
    expect(client.events.at(-1)).toBe('end')
  })

  it('cancels the body when the controller aborts while paused, and reports the reason', async () => {
    const body = source(['a', 'b', 'c'])
    const client = controllerHandler({ pauseAt: 1 })
    const delivering = deliverResponse(client.handler, new Response(body.stream))
    await new Promise((resolve) => setTimeout(resolve, 20))
    client.controller().abort(new Error('the caller gave up'))
    await delivering
    expect(client.events.at(-1)).toBe('error the caller gave up')
    expect(client.chunks).toEqual(['a'])
    expect(body.state.cancelled).toBeInstanceOf(Error)
  })

  it('gives no response to a handler that aborts at the start', async () => {
    const client = controllerHandler({ abortAtStart: true })
    await deliverResponse(client.handler, new Response('never read'))
    expect(client.events).toEqual(['start', 'error aborted before the answer'])
  })

  it('reports an error through onResponseError, with a controller', () => {
    const client = controllerHandler()
    deliverError(client.handler, new Error('refused by the tape'))
    expect(client.events).toEqual(['error refused by the tape'])
  })
})
