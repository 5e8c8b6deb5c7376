import { claimingTapeCount, currentTape, replaysOutsideTapes } from '@agent-tape/core/context'
import { type BoundaryConfig, handleRequest } from './handle-request.js'
import { fetchMayBeMcp } from './mcp-shape.js'
import { observedFetch } from './observed/observed-fetch.js'
import { journalOf } from './observed/run-journal.js'
import { knowBody } from './request-body.js'
import { REDIRECT_STATUSES } from './statuses.js'

type FetchInput = Parameters<typeof fetch>[0]

/**
 * `fetch` with the boundary, which stands behind the setup's stand-in once the first tape opens.
 * A request no tape claims goes to Node's own `fetch` as it was called, untouched; one of a run
 * that is observed rather than intercepted (a run captured in a server) is sent as it was called
 * too, and seen as it goes (see `observedFetch`). One a tape
 * claims becomes one `Request`, decided by `handleRequest`: answered from the tape (the answer is
 * handed to the caller as it is), refused, or sent on. Nothing is re-created on the way, and a
 * body the caller gave as a string or bytes is taken as given rather than read back from the
 * request (decision 0035).
 *
 * It answers as a `fetch` does: a caller's abort rejects with the caller's reason, whatever the
 * tape is doing; an answer that is `Response.error()` rejects as a network error; a recorded
 * redirect is followed, refused or handed over as the request's `redirect` says.
 */
export function createTapedFetch(
  config: BoundaryConfig,
  perform: (request: Request) => Promise<Response>,
  networkFetch: typeof fetch,
): typeof fetch {
  // Not an async function: a request that passes, or is observed, gets Node's own promise.
  return function fetch(input: FetchInput, init?: RequestInit): Promise<Response> {
    try {
      const tape = currentTape()
      if (!tape && claimingTapeCount() === 0 && !(replaysOutsideTapes() && fetchMayBeMcp(input, init)))
        return networkFetch(input, init)
      // A run that is observed (captured in a server) is decided only if it is kept.
      const journal = tape && journalOf(tape)
      const observed = journal && observedFetch(journal, config, networkFetch, input, init)
      if (observed) return observed
    } catch (error) {
      // As `fetch` fails: a rejected promise, never a throw.
      return Promise.reject(error)
    }
    return tapedFetch(input, init)
  }

  async function tapedFetch(input: FetchInput, init?: RequestInit): Promise<Response> {
    const request = new Request(input, init)
    const hops = input instanceof Request ? redirectCounts.get(input) : undefined
    if (hops) redirectCounts.set(request, hops)
    const bytes = bodyBytes(init)
    if (bytes) knowBody(request, bytes)
    const { signal } = request
    if (signal.aborted) throw signal.reason
    const outcome = await untilAborted(handleRequest(request, config, perform), signal)
    if (outcome.type === 'error') throw outcome.error
    if (outcome.type === 'passthrough') return networkFetch(request)
    return answered(request, outcome.response)
  }
}

/** The body a `fetch` was called with, as bytes, when it is a string or bytes already. */
function bodyBytes(init: RequestInit | undefined): Buffer | undefined {
  const body = init?.body
  if (typeof body === 'string') return Buffer.from(body)
  if (body instanceof Uint8Array) return Buffer.from(body.buffer, body.byteOffset, body.byteLength)
  if (body instanceof ArrayBuffer) return Buffer.from(body)
  return undefined
}

/** `work`'s outcome, or the caller's abort reason as soon as the caller aborts. */
function untilAborted<T>(work: Promise<T>, signal: AbortSignal): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason)
    signal.addEventListener('abort', onAbort, { once: true })
    work.then(
      (value) => {
        signal.removeEventListener('abort', onAbort)
        resolve(value)
      },
      (error: unknown) => {
        signal.removeEventListener('abort', onAbort)
        reject(error)
      },
    )
  })
}

/** The answer as the caller's `fetch` gives it: its URL the request's, a redirect as `redirect` says. */
async function answered(request: Request, response: Response): Promise<Response> {
  if (response.type === 'error') throw Object.assign(new TypeError('Failed to fetch'), { cause: response })
  if (REDIRECT_STATUSES.has(response.status) && request.redirect !== 'manual') {
    if (request.redirect === 'error') throw networkError('unexpected redirect')
    return followRedirect(request, response)
  }
  Object.defineProperty(response, 'url', { value: request.url, enumerable: true, configurable: true })
  return response
}

/**
 * Follows a replayed redirect as `fetch` follows one (WHATWG Fetch, "HTTP-redirect fetch"): the
 * next request goes through `fetch` again, and so through the boundary.
 */
async function followRedirect(request: Request, response: Response): Promise<Response> {
  const location = response.headers.get('location')
  if (location === null) {
    Object.defineProperty(response, 'url', { value: request.url, enumerable: true, configurable: true })
    return response
  }
  let target: URL
  try {
    target = new URL(location, request.url)
  } catch (error) {
    throw networkError(error)
  }
  if (target.protocol !== 'http:' && target.protocol !== 'https:')
    throw networkError('URL scheme must be a HTTP(S) scheme')
  const hops = (redirectCounts.get(request) ?? 0) + 1
  if (hops > 20) throw networkError('redirect count exceeded')
  // Only a 303 turns a request with a body into a GET; any other redirect would send it again.
  if (response.status !== 303 && request.body !== null)
    throw networkError('a request with a body cannot follow a redirect')
  const headers = new Headers(request.headers)
  const init: RequestInit = {
    method: request.method,
    headers,
    redirect: request.redirect,
    signal: request.signal,
  }
  if (
    (response.status === 303 && request.method !== 'GET' && request.method !== 'HEAD') ||
    ((response.status === 301 || response.status === 302) && request.method === 'POST')
  ) {
    init.method = 'GET'
    for (const name of BODY_HEADERS) headers.delete(name)
  }
  if (target.origin !== new URL(request.url).origin) {
    for (const name of ['authorization', 'proxy-authorization', 'cookie', 'host']) headers.delete(name)
  }
  const next = new Request(target, init)
  redirectCounts.set(next, hops)
  const final = await globalThis.fetch(next)
  Object.defineProperty(final, 'redirected', { value: true, configurable: true })
  return final
}

/** How many redirects led to a request the boundary sends on, by the request. */
const redirectCounts = new WeakMap<Request, number>()

const BODY_HEADERS = [
  'content-encoding',
  'content-language',
  'content-location',
  'content-type',
  'content-length',
]

function networkError(cause: unknown): TypeError {
  return Object.assign(new TypeError('Failed to fetch'), { cause })
}
