import { isSecretParamName } from '@agent-tape/core/internal'
import type { ModelCodec } from './codecs/codec.js'
import { findCodec } from './codecs/index.js'
import type { RequestClass } from './endpoints.js'
import { behaviourHeaders } from './headers.js'
import { toRequestBody } from './request-body.js'

/** A request turned into decision input: its boundary kind, the codec that owns it, and the canonical input. */
export interface RequestDecision {
  kind: 'llm' | 'http'
  codec: ModelCodec | undefined
  input: Record<string, unknown>
}

/**
 * Everything a request's canonical input is computed from, read from the request once:
 * {@link decideRequest} reads nothing else, and {@link wireHead} covers all of it but the body.
 */
export interface RequestParts {
  requestClass: RequestClass
  /** Upper-cased. */
  method: string
  url: URL
  /** The codec that owns a model request (by method and path); `undefined` for other HTTP. */
  codec: ModelCodec | undefined
  /** The canonical query: credential parameters left out, pairs sorted. */
  query: [string, string][] | undefined
  /** The headers the key reads: a model request's behaviour headers, or accept and content-type. */
  headers: Record<string, string>
  /** The content type as sent, which decides how the body is read. */
  contentType: string
  body: Buffer | undefined
}

/** Reads what {@link decideRequest} needs from a request whose body has been read (see `readRequestBytes`). */
export function readRequestParts(
  request: Request,
  url: URL,
  requestClass: RequestClass,
  body: Buffer | undefined,
): RequestParts {
  const method = request.method.toUpperCase()
  const model = requestClass === 'model'
  return {
    requestClass,
    method,
    url,
    codec: model ? findCodec(method, url.pathname) : undefined,
    query: canonicalQuery(url),
    headers: model ? behaviourHeaders(request.headers) : otherHeaders(request.headers),
    contentType: request.headers.get('content-type') ?? '',
    body,
  }
}

/**
 * The decision of a request: its kind, its codec, and its canonical input, the request's key.
 * Model requests are keyed by API, path, behaviour headers and the codec's canonical body, without
 * the host (a test server's port changes every run); other HTTP by method, URL, query and body.
 * Auth headers and credential query parameters never take part.
 */
export function decideRequest(parts: RequestParts): RequestDecision {
  const { requestClass, method, url, codec, query, headers, contentType } = parts
  // A codec reads JSON: its API's body is JSON whatever content type the SDK sent it with.
  const body = toRequestBody(parts.body, contentType, { json: codec !== undefined })
  if (requestClass === 'model') {
    if (codec && body && 'json' in body) {
      const input: Record<string, unknown> = { api: codec.name, method, path: url.pathname }
      if (query) input.query = query
      if (Object.keys(headers).length > 0) input.headers = headers
      input.body = codec.canonicalBody(body.json)
      return { kind: 'llm', codec, input }
    }
    return {
      kind: 'http',
      codec: undefined,
      input: compact({ method, url: url.pathname, query, headers, body }),
    }
  }
  return {
    kind: 'http',
    codec: undefined,
    input: compact({ method, url: `${url.origin}${url.pathname}`, query, headers, body }),
  }
}

/**
 * What the wire fingerprint of a request covers besides its body and its position: with equal
 * heads and equal body bytes, {@link decideRequest} returns equal decisions. Every input it
 * reads, in its order:
 * - `requestClass` chooses the branch (model or other HTTP): in the head.
 * - `codec` (by method and path) and whether the body reads as JSON decide the kind: the
 *   codec's name is in the head, and the body bytes are hashed; the codec's canonical body is
 *   a function of the JSON, and so of the bytes.
 * - `contentType` decides how the body is read (JSON, form, text, hashed, the multipart
 *   boundary): in the head as sent.
 * - `method`, `url.pathname`: in the head; `url.origin` only for other HTTP, since a model
 *   request's key leaves the host out (a test server's port differs on every run).
 * - `query`: the canonical query, credentials left out as the key leaves them out, so that
 *   another API key in the URL does not change the fingerprint.
 * - `headers`: exactly the headers the key reads (behaviour headers, or accept and
 *   content-type), never credentials.
 * The codec list and the credential parameter names are code; a change to them or to how an
 * input is canonicalized must bump `REQUEST_WIRE_VERSION`.
 */
export function wireHead(parts: RequestParts): string {
  const { requestClass, method, url, codec, query, headers, contentType } = parts
  const route = requestClass === 'model' ? url.pathname : `${url.origin}${url.pathname}`
  return JSON.stringify([
    REQUEST_WIRE_VERSION,
    requestClass,
    codec?.name ?? null,
    method,
    route,
    query ?? null,
    headers,
    contentType,
  ])
}

/**
 * Version of what {@link wireHead} and {@link decideRequest} make of a request. Bump it with any
 * change to how a request is canonicalized (a codec's canonical body, the headers or query a key
 * reads): fingerprints recorded before then stop matching, and those requests are keyed again.
 * `request-wire-version.test.ts` pins what a corpus of requests for every codec canonicalizes to
 * under each version, so such a change fails until the version is bumped.
 */
export const REQUEST_WIRE_VERSION = 1

/** The kind a request is decided under when its body reads as its codec expects. */
export function expectedKind(parts: RequestParts): 'llm' | 'http' {
  return parts.codec ? 'llm' : 'http'
}

function otherHeaders(requestHeaders: Headers): Record<string, string> {
  const headers: Record<string, string> = {}
  for (const name of ['accept', 'content-type']) {
    const value = requestHeaders.get(name)
    if (value !== null)
      headers[name] = name === 'content-type' ? value.replace(/;\s*boundary=.*$/i, '') : value
  }
  return headers
}

function canonicalQuery(url: URL): [string, string][] | undefined {
  if (url.search === '') return undefined
  const pairs = [...url.searchParams.entries()].filter(([name]) => !isSecretParamName(name))
  if (pairs.length === 0) return undefined
  return pairs.sort(([a, x], [b, y]) => (a < b ? -1 : a > b ? 1 : x < y ? -1 : x > y ? 1 : 0))
}

function compact(input: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {}
  for (const [key, value] of Object.entries(input)) {
    if (value === undefined) continue
    if (
      typeof value === 'object' &&
      value !== null &&
      !Array.isArray(value) &&
      Object.keys(value).length === 0
    )
      continue
    out[key] = value
  }
  return out
}
