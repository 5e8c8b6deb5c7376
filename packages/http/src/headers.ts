import { redactUrl } from '@agent-tape/core/internal'
import { BEHAVIOUR_HEADERS, inNameList, PROVIDER_RESPONSE_HEADERS } from './codecs/index.js'

/**
 * Header policy. Request headers never reach a cassette except the few that change what a
 * provider does (each codec names its own); response headers are kept only from an allowlist
 * (the common ones below and each codec's), so auth, cookies, organisation ids and
 * infrastructure noise are never stored.
 */

const RESPONSE_HEADERS = new Set([
  'content-type',
  'x-request-id',
  'request-id',
  'retry-after',
  'retry-after-ms',
  'x-should-retry',
  'location',
  'etag',
  'last-modified',
  'cache-control',
  'content-disposition',
  'content-language',
  // MCP over HTTP: the session the client sends back, and the protocol version agreed.
  'mcp-session-id',
  'mcp-protocol-version',
])
const RESPONSE_HEADER_PREFIXES = ['x-ratelimit-']

/** The request headers that decide behaviour (they are part of the key). */
export function behaviourHeaders(headers: Headers): Record<string, string> {
  const out: Record<string, string> = {}
  for (const name of BEHAVIOUR_HEADERS) {
    const value = headers.get(name)
    if (value !== null) out[name] = value
  }
  return out
}

/** The response headers worth storing: what SDKs and agents read (ids, content type, rate limits). */
export function storableResponseHeaders(headers: Headers): Record<string, string> {
  const out: Record<string, string> = {}
  headers.forEach((value, name) => {
    const lower = name.toLowerCase()
    if (
      RESPONSE_HEADERS.has(lower) ||
      RESPONSE_HEADER_PREFIXES.some((p) => lower.startsWith(p)) ||
      inNameList(PROVIDER_RESPONSE_HEADERS, lower)
    )
      out[lower] = lower === 'location' ? redactUrl(value) : value
  })
  return out
}
