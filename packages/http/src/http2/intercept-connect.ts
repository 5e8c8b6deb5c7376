import http2, {
  type ClientHttp2Session,
  type ClientSessionRequestOptions,
  type OutgoingHttpHeaders,
} from 'node:http2'
import { currentTape } from '@agent-tape/core/context'
import { claimsUrl, mayBeUndeclaredModel } from '../claims.js'
import { classifyUrl, matchesEndpointHost, passesThrough } from '../endpoints.js'
import type { BoundaryConfig } from '../handle-request.js'
import { performingForTape } from '../network/performing.js'
import { handleRequestWhenTaped } from '../request-handling.js'
import { sentHeadersOf, urlOf } from './headers.js'
import { openTapedStream, type StreamAnswer } from './open-stream.js'
import { performOverHttp2, type SendHttp2 } from './perform.js'
import { TapedHttp2Session } from './taped-session.js'

type Connect = (...args: unknown[]) => ClientHttp2Session

/**
 * Routes `node:http2` clients through the tape, as `fetch` is. While a tape records or replays,
 * `http2.connect()` to an origin the tape owns returns a {@link TapedHttp2Session}: replay opens
 * no connection, recording sends each request over a real session and tapes the answer. Origins
 * that pass through (loopback that is no model endpoint, `allowHosts`) get node's session, and so
 * does a connection opened with no tape recording or replaying in its context; the socket guard
 * judges those. Such a session's requests are still answered by the tape when a test that records
 * or replays reuses it (a client pooled across tests), and its model calls to a loopback server
 * nobody declared are refused by the tape, and so are those of the sessions opened before the
 * boundary loaded (`earlySessions`, which the setup's stand-in kept). Returns the removal.
 */
export function interceptHttp2(
  config: BoundaryConfig,
  earlySessions: ReadonlyMap<ClientHttp2Session, unknown> = new Map(),
): () => void {
  const original = http2.connect as unknown as Connect
  let installed = true
  const answer: StreamAnswer = async (request, send) => {
    const perform = (r: Request) => performingForTape(() => performOverHttp2(r, send))
    const spare = request.clone()
    const outcome = await handleRequestWhenTaped(request, config, perform)
    if (outcome.type === 'respond') return outcome.response
    if (outcome.type === 'error') throw outcome.error
    // Let through: handleRequest has judged the request, so the guard need not again.
    return perform(spare)
  }
  const connect = function connect(...args: unknown[]): ClientHttp2Session {
    const origin = originOf(args[0])
    if (!origin) return original(...args)
    if (passesThroughAtOrigin(origin, config)) {
      // node's own session; a model call on it to a local server nobody declared is the tape's.
      const session = original(...args)
      watchRequests(session, origin, config, answer, () => installed)
      return session
    }
    const tape = currentTape()
    // A run captured in a server keeps node's own session (pooled beyond the run); its requests
    // are still taped while the run is open.
    if (!tape || tape.action === 'passthrough' || tape.failOpen) {
      const session = original(...args)
      watchRequests(session, origin, config, answer, () => installed)
      return session
    }
    const session = new TapedHttp2Session({
      origin,
      answer,
      connect: () => performingForTape(() => original(args[0], optionsOf(args[1]))),
    })
    const listener = args.find((arg) => typeof arg === 'function') as (() => void) | undefined
    if (listener) session.once('connect', listener)
    return session as unknown as ClientHttp2Session
  }
  http2.connect = connect as unknown as typeof http2.connect
  for (const [session, authority] of earlySessions) {
    const origin = originOf(authority)
    if (origin && !session.destroyed && !session.closed)
      watchRequests(session, origin, config, answer, () => installed)
  }
  return () => {
    installed = false
    if (http2.connect === (connect as unknown)) http2.connect = original as unknown as typeof http2.connect
  }
}

/** `connect(authority, options?, listener?)`'s options, without the listener. */
function optionsOf(second: unknown): object {
  return typeof second === 'object' && second !== null ? second : {}
}

function originOf(authority: unknown): URL | undefined {
  try {
    const url =
      typeof authority === 'string'
        ? new URL(authority)
        : authority instanceof URL
          ? new URL(authority.href)
          : undefined
    return url?.protocol === 'http:' || url?.protocol === 'https:' ? url : undefined
  } catch {
    return undefined
  }
}

/** Whether every request to this origin passes through: the tape never owns its connection. */
function passesThroughAtOrigin(origin: URL, config: BoundaryConfig): boolean {
  const port = Number(origin.port || (origin.protocol === 'https:' ? 443 : 80))
  return (
    passesThrough(classifyUrl(origin, config.modelEndpoints, config.allowHosts)) &&
    !matchesEndpointHost(origin.hostname, port, config.modelEndpoints)
  )
}

let watchedIds = 1

function claims(sent: OutgoingHttpHeaders, config: BoundaryConfig): boolean {
  try {
    const url = urlOf(sent)
    return claimsUrl(url, config) || mayBeUndeclaredModel(String(sent[':method']), url, config)
  } catch {
    // Headers that address no URL: node:http2 judges them.
    return false
  }
}

/**
 * Hands the tape the requests made on a real session while a tape owns them: a session opened
 * outside every tape and used inside one would otherwise reach the network from a replay, and a
 * model call to a loopback server nobody declared would pass through untaped.
 */
function watchRequests(
  session: ClientHttp2Session,
  origin: URL,
  config: BoundaryConfig,
  answer: StreamAnswer,
  installed: () => boolean,
): void {
  const request = session.request
  const send: SendHttp2 = (headers, options) => request.call(session, headers, options)
  session.request = function tapedRequest(
    headers?: OutgoingHttpHeaders,
    options?: ClientSessionRequestOptions,
  ) {
    if (!installed() || session.destroyed || session.closed) return send(headers, options)
    const sent = sentHeadersOf(origin, headers)
    if (!claims(sent, config)) return send(headers, options)
    watchedIds += 2
    return openTapedStream({
      session,
      origin,
      headers,
      options: options ?? {},
      id: watchedIds,
      answer,
      send,
      onActivity: () => {},
    }) as unknown as ReturnType<ClientHttp2Session['request']>
  } as ClientHttp2Session['request']
}
