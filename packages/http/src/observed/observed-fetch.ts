import { tapeInternals } from '@agent-tape/core/internal'
import { findCodec } from '../codecs/index.js'
import { classifyUrl } from '../endpoints.js'
import type { BoundaryConfig } from '../handle-request.js'
import { mayBeMcp } from '../mcp-shape.js'
import { REDIRECT_STATUSES } from '../statuses.js'
import type { ObservedExchange, RequestHeaders, RunJournal } from './run-journal.js'

type FetchInput = Parameters<typeof fetch>[0]

interface Dispatcher {
  dispatch(options: { method?: string }, handler: DispatchHandler): boolean
}

type DispatchHandler = Record<string, unknown>

/**
 * A `fetch` of a run that is observed rather than intercepted (see {@link RunJournal}): sent as
 * the caller made it, by Node's own `fetch`, with a dispatcher of its own that sees the response's
 * head and each body chunk go by. Nothing is re-created, read twice or teed on the way, and
 * nothing is decided: the run's place for the request is held, and the request is decided only
 * if the run is kept. `undefined` when the call is not one to observe (a `Request` object or a
 * streamed body, which would have to be read first; a request that may be MCP, decided as it
 * goes; a run past its bound): the caller then handles it as any other.
 */
export function observedFetch(
  journal: RunJournal,
  config: BoundaryConfig,
  networkFetch: typeof fetch,
  input: FetchInput,
  init: RequestInit | undefined,
): Promise<Response> | undefined {
  // A run past its bound is not kept, and one that has ended records nothing more.
  if (journal.spoiled || journal.closed) return networkFetch(input, init)
  let send: ((send: typeof fetch) => Promise<Response>) | undefined
  try {
    const observed = observe(journal, config, input, init)
    if (observed === 'not observed') return undefined
    if (observed === 'pass') return networkFetch(input, init)
    send = observed
  } catch (error) {
    // Capture fails open: what it cannot note, the run loses (it is dropped), never the request.
    journal.failed(input instanceof Request ? input.url : String(input), error)
    return networkFetch(input, init)
  }
  return send(networkFetch)
}

/**
 * What observing a `fetch` call takes, decided before it is sent: `'not observed'` (the caller
 * intercepts it), `'pass'` (sent untouched, nothing of it to note), or the send that notes it.
 */
function observe(
  journal: RunJournal,
  config: BoundaryConfig,
  input: FetchInput,
  init: RequestInit | undefined,
): 'not observed' | 'pass' | ((send: typeof fetch) => Promise<Response>) {
  if (input instanceof Request) return 'not observed'
  const body = bodyBytes(init?.body)
  if (body === null) return 'not observed'
  const inner = (init as { dispatcher?: Dispatcher } | undefined)?.dispatcher ?? globalDispatcher()
  if (!inner) return 'not observed'
  let url: URL
  try {
    url = new URL(input)
  } catch {
    return 'not observed'
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return 'not observed'
  const requestClass = classifyUrl(url, config.modelEndpoints, config.allowHosts, config.tapeHosts)
  if (requestClass === 'allowed') return 'pass'
  const method = (init?.method ?? 'GET').toUpperCase()
  const headers = copyHeaders(init?.headers)
  if (mayBeMcp(method, headerOf(headers))) return 'not observed'
  const request = { method, url: url.href, headers, body, config }
  // A loopback request passes: only what it asked is kept, to check once the run is kept that
  // it was no model call to a host nobody declared.
  if (requestClass === 'loopback') {
    journal.observe({ ...request, reserved: undefined }, false)
    return 'pass'
  }
  const kind = requestClass === 'model' && findCodec(method, url.pathname) ? 'llm' : 'http'
  const reserved = tapeInternals(journal.tape).reserveRequest(kind)
  if (!reserved) return 'not observed'
  const exchange = journal.observe({ ...request, reserved }, true)
  if (!exchange) {
    reserved.release()
    return 'pass'
  }
  const follows = (init?.redirect ?? 'follow') === 'follow'
  const observing: Dispatcher = {
    dispatch: (options, handler) => inner.dispatch(options, tapHandler(journal, exchange, handler, follows)),
  }
  return (send) =>
    send(input, { ...init, dispatcher: observing } as RequestInit).then(
      (response) => {
        // An answer that never went by the dispatcher (another one answered it): not observed.
        if (!exchange.head) journal.unobserved(url.href)
        return response
      },
      (error: unknown) => {
        journal.end(exchange, error)
        throw error
      },
    )
}

/**
 * The body a `fetch` was called with, as given when it is a string (made bytes only if the run is
 * kept) or as bytes; `null` for one that would have to be read first.
 */
function bodyBytes(body: RequestInit['body']): Buffer | string | undefined | null {
  if (body === undefined || body === null) return undefined
  if (typeof body === 'string') return body
  if (body instanceof Uint8Array) return Buffer.from(body.buffer, body.byteOffset, body.byteLength)
  if (body instanceof ArrayBuffer) return Buffer.from(body)
  return null
}

/** A header of a copy {@link copyHeaders} made, by its name in lower case, without a `Headers`. */
function headerOf(headers: RequestHeaders): Pick<Headers, 'get' | 'has'> {
  const get = (name: string): string | null => {
    const pairs = Array.isArray(headers) ? headers : Object.entries(headers as Record<string, string>)
    for (const [key, value] of pairs) if (String(key).toLowerCase() === name) return String(value)
    return null
  }
  return { get, has: (name) => get(name) !== null }
}

/** The caller's headers as they are now, in a form `Headers` takes later. */
function copyHeaders(headers: RequestHeaders | undefined): RequestHeaders {
  if (headers === undefined) return []
  if (headers instanceof Headers) return [...headers]
  if (Array.isArray(headers)) return headers.map((pair) => [...pair] as [string, string])
  return { ...(headers as Record<string, string>) }
}

// Node's built-in fetch and undici 7 read the first; undici 8 reads the second.
const GLOBAL_DISPATCHER = Symbol.for('undici.globalDispatcher.1')
// The boundary's guard stands in front of the global dispatcher (see dispatcher-guard.ts): an
// observed request is past it already.
const GUARDED = Symbol.for('agent-tape.guarded-dispatcher')

function globalDispatcher(): Dispatcher | undefined {
  const current = (globalThis as Record<symbol, (Dispatcher & { [GUARDED]?: Dispatcher }) | undefined>)[
    GLOBAL_DISPATCHER
  ]
  if (!current || typeof current.dispatch !== 'function') return undefined
  return current[GUARDED] ?? current
}

/**
 * The dispatch handler `fetch` gave, with every callback it has passed on as it is, and the
 * response's head, chunks and end noted on the way. Only the callbacks the handler has are
 * given: undici chooses how to call a handler by the ones it finds.
 */
function tapHandler(
  journal: RunJournal,
  exchange: ObservedExchange,
  handler: DispatchHandler,
  follows: boolean,
): DispatchHandler {
  const tapped: DispatchHandler = {}
  for (const name of HANDLER_CALLBACKS) {
    const callback = handler[name]
    if (typeof callback === 'function') tapped[name] = callback.bind(handler)
  }
  const call = (name: string, args: unknown[]) =>
    (handler[name] as (...args: unknown[]) => unknown).apply(handler, args)
  let keeping = true
  const onHead = (status: number, rawHeaders: readonly (Buffer | string)[], statusText: string) => {
    if (status < 200) return
    // `fetch` follows it with a request of its own, through this dispatcher: the last head counts.
    if (follows && REDIRECT_STATUSES.has(status) && hasLocation(rawHeaders)) {
      keeping = false
      return
    }
    keeping = true
    exchange.head = { status, statusText, rawHeaders, at: performance.now() }
    exchange.chunks.length = 0
  }
  // Before a response, `fetch` rejects, and the exchange ends with what it rejects with (see
  // `observedFetch`); after, the body fails as `fetch` fails it, with the cause inside.
  const failed = (error: unknown) => {
    if (exchange.head && keeping) journal.end(exchange, new TypeError('terminated', { cause: error }))
  }
  const onChunk = (chunk: unknown) => {
    if (keeping && Buffer.isBuffer(chunk)) keeping = journal.chunk(exchange, chunk)
  }
  if ('onHeaders' in tapped) {
    tapped.onHeaders = (status: number, rawHeaders: Buffer[], resume: unknown, statusText: string) => {
      onHead(status, rawHeaders, statusText)
      return call('onHeaders', [status, rawHeaders, resume, statusText])
    }
  }
  if ('onData' in tapped) {
    tapped.onData = (chunk: unknown) => {
      onChunk(chunk)
      return call('onData', [chunk])
    }
  }
  if ('onComplete' in tapped) {
    tapped.onComplete = (trailers: unknown) => {
      if (keeping) journal.end(exchange)
      return call('onComplete', [trailers])
    }
  }
  if ('onError' in tapped) {
    tapped.onError = (error: unknown) => {
      failed(error)
      return call('onError', [error])
    }
  }
  // The handler interface of undici 7 and later, for a fetch that hands one over.
  if ('onResponseStart' in tapped) {
    tapped.onResponseStart = (controller: unknown, status: number, headers: unknown, statusText: string) => {
      onHead(status, flatHeaders(headers), statusText)
      return call('onResponseStart', [controller, status, headers, statusText])
    }
  }
  if ('onResponseData' in tapped) {
    tapped.onResponseData = (controller: unknown, chunk: unknown) => {
      onChunk(chunk)
      return call('onResponseData', [controller, chunk])
    }
  }
  if ('onResponseEnd' in tapped) {
    tapped.onResponseEnd = (controller: unknown, trailers: unknown) => {
      if (keeping) journal.end(exchange)
      return call('onResponseEnd', [controller, trailers])
    }
  }
  if ('onResponseError' in tapped) {
    tapped.onResponseError = (controller: unknown, error: unknown) => {
      failed(error)
      return call('onResponseError', [controller, error])
    }
  }
  return tapped
}

const HANDLER_CALLBACKS = [
  'onConnect',
  'onUpgrade',
  'onResponseStarted',
  'onHeaders',
  'onData',
  'onComplete',
  'onError',
  'onBodySent',
  'onRequestSent',
  'onRequestStart',
  'onRequestUpgrade',
  'onResponseStart',
  'onResponseData',
  'onResponseEnd',
  'onResponseError',
]

function hasLocation(rawHeaders: readonly (Buffer | string)[]): boolean {
  for (let i = 0; i < rawHeaders.length; i += 2) {
    if (String(rawHeaders[i]).toLowerCase() === 'location') return true
  }
  return false
}

/** Headers of undici 7's handler interface (an object of names to values) as raw pairs. */
function flatHeaders(headers: unknown): string[] {
  const raw: string[] = []
  if (!headers || typeof headers !== 'object') return raw
  for (const [name, value] of Object.entries(headers as Record<string, unknown>)) {
    for (const one of Array.isArray(value) ? value : [value]) raw.push(name, String(one))
  }
  return raw
}
