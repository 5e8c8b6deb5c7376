import { isSecretParamName } from '@agent-tape/core/internal'
import type { ModelCodec } from './codecs/codec.js'
import { findCodec } from './codecs/index.js'
import type { RequestClass } from './endpoints.js'
import { behaviourHeaders } from './headers.js'
import { readRequestBody } from './request-body.js'

/** A request turned into decision input: its boundary kind, the codec that owns it, and the canonical input. */
export interface RequestDecision {
  kind: 'llm' | 'http'
  codec: ModelCodec | undefined
  input: Record<string, unknown>
}

/**
 * Canonicalizes a request for its key. Model requests are keyed by API, path, behaviour headers
 * and the codec's canonical body, without the host (a test server's port changes every run);
 * other HTTP by method, URL, query and body. Auth headers and credential query parameters
 * never take part. `url` is the request's URL, already parsed by the caller.
 */
export async function toRequestDecision(
  request: Request,
  url: URL,
  requestClass: RequestClass,
  consumeBody = false,
): Promise<RequestDecision> {
  const method = request.method.toUpperCase()
  const codec = requestClass === 'model' ? findCodec(method, url.pathname) : undefined
  // A codec reads JSON: its API's body is JSON whatever content type the SDK sent it with.
  const body = await readRequestBody(request, consumeBody, { json: codec !== undefined })
  const query = canonicalQuery(url)
  if (requestClass === 'model') {
    const headers = behaviourHeaders(request.headers)
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
  const headers: Record<string, string> = {}
  for (const name of ['accept', 'content-type']) {
    const value = request.headers.get(name)
    if (value !== null)
      headers[name] = name === 'content-type' ? value.replace(/;\s*boundary=.*$/i, '') : value
  }
  return {
    kind: 'http',
    codec: undefined,
    input: compact({ method, url: `${url.origin}${url.pathname}`, query, headers, body }),
  }
}

function canonicalQuery(url: URL): [string, string][] | undefined {
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
