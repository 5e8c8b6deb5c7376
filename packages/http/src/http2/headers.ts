import { type IncomingHttpHeaders, type OutgoingHttpHeaders, sensitiveHeaders } from 'node:http2'
import { dispatchHeaders } from '../network/dispatch-request.js'

/** The headers node:http2 reports for a response: `:status` first, `set-cookie` as a list. */
export interface ResponseHead {
  headers: IncomingHttpHeaders & { ':status': number }
  /** `[name, value, name, value, …]`, as the `response` event's third argument. */
  raw: string[]
}

/**
 * The headers a stream is sent with, as node:http2 completes them: `:method` GET, `:path` `/`,
 * `:scheme` and `:authority` from the session's origin (unless a `host` header names it).
 */
export function sentHeadersOf(origin: URL, headers: OutgoingHttpHeaders = {}): OutgoingHttpHeaders {
  const sent: OutgoingHttpHeaders = Object.assign(Object.create(null), headers)
  sent[':method'] ??= 'GET'
  if (sent[':authority'] === undefined && sent.host === undefined) sent[':authority'] = authorityOf(origin)
  sent[':scheme'] ??= origin.protocol.slice(0, -1)
  sent[':path'] ??= '/'
  return sent
}

/** `host:port`, the port always written, as node:http2 writes a session's authority. */
export function authorityOf(origin: URL): string {
  return `${origin.hostname}:${origin.port || (origin.protocol === 'https:' ? 443 : 80)}`
}

/** The URL a stream's headers address. */
export function urlOf(sent: OutgoingHttpHeaders): URL {
  const authority = sent[':authority'] ?? sent.host
  return new URL(`${sent[':scheme']}://${authority}${sent[':path']}`)
}

/** A stream's request as a fetch `Request`, for `handleRequest`. */
export function toRequest(sent: OutgoingHttpHeaders, body: Buffer, signal: AbortSignal): Request {
  const method = String(sent[':method']).toUpperCase()
  const headers = dispatchHeaders(Object.entries(sent).filter(([name]) => !name.startsWith(':')))
  const hasBody = body.length > 0 && method !== 'GET' && method !== 'HEAD'
  return new Request(urlOf(sent), {
    method,
    headers,
    signal,
    ...(hasBody ? { body, duplex: 'half' } : {}),
  } as RequestInit)
}

/** A `Response`'s status and headers as node:http2 hands them to a `response` listener. */
export function responseHeadOf(response: Response): ResponseHead {
  const headers = Object.assign(Object.create(null), {
    ':status': response.status,
    [sensitiveHeaders]: [],
  }) as ResponseHead['headers']
  const raw = [':status', String(response.status)]
  response.headers.forEach((value, name) => {
    if (name === 'set-cookie') return
    headers[name] = value
    raw.push(name, value)
  })
  const cookies = response.headers.getSetCookie()
  if (cookies.length > 0) {
    headers['set-cookie'] = cookies
    for (const cookie of cookies) raw.push('set-cookie', cookie)
  }
  return { headers, raw }
}
