import { isModelHost } from './codecs/index.js'
import { type HostPattern, matchesHost } from './network/allow-hosts.js'

/**
 * Which requests are model requests. Known provider hosts are model endpoints by default;
 * users add base URLs for compatible servers, gateways, or a server on loopback.
 *
 * @example
 * 'https://gateway.example.com/llm'      // every request under that prefix
 * 'http://127.0.0.1:*'                    // any port on loopback (a test server)
 * (url) => url.hostname.endsWith('.internal')
 */
export type EndpointPattern = string | RegExp | ((url: URL) => boolean)

/** `http://host:*` with an optional path: the origin without the port, and the path. Hosts may be IPv6 (`[::1]`). */
const WILDCARD_PORT = /^(https?:\/\/(?:\[[^\]/]+\]|[^/:[\]]+)):\*(\/.*)?$/i

/**
 * `model`: taped as a model request; `loopback`: a local server, passes through; `allowed`: a host
 * in `allowHosts`, passes through; `external`: taped as other HTTP.
 */
export type RequestClass = 'model' | 'loopback' | 'allowed' | 'external'

export function isLoopbackHost(hostname: string): boolean {
  const host = hostname.replace(/^\[|\]$/g, '')
  return host === 'localhost' || host.endsWith('.localhost') || host === '::1' || /^127\./.test(host)
}

function matchesPattern(url: URL, pattern: EndpointPattern): boolean {
  if (typeof pattern === 'function') return pattern(url)
  if (pattern instanceof RegExp) return pattern.test(url.href)
  const base = parsedPattern(pattern)
  if (base.anyPort) {
    return (
      url.protocol === base.protocol && url.hostname === base.hostname && startsWithPath(url, base.pathname)
    )
  }
  return url.origin === base.origin && startsWithPath(url, base.pathname)
}

interface ParsedPattern {
  protocol: string
  hostname: string
  origin: string
  pathname: string
  /** `http://host:*`: any port. */
  anyPort: boolean
}

/** String patterns parsed once: every request is classified against every pattern. */
const parsedPatterns = new Map<string, ParsedPattern>()

function parsedPattern(pattern: string): ParsedPattern {
  let parsed = parsedPatterns.get(pattern)
  if (!parsed) {
    const wildcardPort = WILDCARD_PORT.exec(pattern)
    const url = new URL(wildcardPort ? `${wildcardPort[1]}${wildcardPort[2] ?? '/'}` : pattern)
    const { protocol, hostname, origin, pathname } = url
    parsed = { protocol, hostname, origin, pathname, anyPort: wildcardPort !== null }
    parsedPatterns.set(pattern, parsed)
  }
  return parsed
}

function startsWithPath(url: URL, prefix: string): boolean {
  const trimmed = prefix.replace(/\/+$/, '')
  return trimmed === '' || url.pathname === trimmed || url.pathname.startsWith(`${trimmed}/`)
}

/**
 * Whether a connection to `host:port` could carry requests to one of `patterns` (a socket knows
 * its host and port, not its path). Function patterns are asked about the origin's root.
 */
export function matchesEndpointHost(
  host: string,
  port: number | undefined,
  patterns: readonly EndpointPattern[],
): boolean {
  if (patterns.length === 0) return false
  const bare = host.replace(/^\[|\]$/g, '')
  const origins = ['http', 'https'].map((scheme) => {
    const name = bare.includes(':') ? `[${bare}]` : bare
    return new URL(`${scheme}://${name}${port === undefined ? '' : `:${port}`}/`)
  })
  return patterns.some((pattern) => {
    if (typeof pattern === 'string') {
      const wildcard = WILDCARD_PORT.exec(pattern)
      const base = new URL(wildcard ? `${wildcard[1]}/` : pattern)
      const samePort =
        wildcard !== null || origins.some((o) => o.port === base.port && o.protocol === base.protocol)
      return base.hostname === origins[0]!.hostname && samePort
    }
    return origins.some((origin) => (pattern instanceof RegExp ? pattern.test(origin.href) : pattern(origin)))
  })
}

/** Classifies a request URL: a model endpoint, traffic that passes through, or other HTTP. */
export function classifyUrl(
  url: URL,
  extra: readonly EndpointPattern[],
  allowHosts: readonly HostPattern[] = [],
  tapeHosts: readonly HostPattern[] = [],
): RequestClass {
  if (extra.some((p) => matchesPattern(url, p))) return 'model'
  if (isModelHost(url.hostname)) return 'model'
  if (allowHosts.length > 0 || tapeHosts.length > 0) {
    const port = Number(url.port || (url.protocol === 'https:' ? 443 : 80))
    if (matchesHost(url.hostname, port, allowHosts)) return 'allowed'
    if (matchesHost(url.hostname, port, tapeHosts)) return 'external'
  }
  return isLoopbackHost(url.hostname) ? 'loopback' : 'external'
}

/** Whether requests of this class pass through untaped. */
export function passesThrough(requestClass: RequestClass): boolean {
  return requestClass === 'loopback' || requestClass === 'allowed'
}

export function validateEndpointPattern(pattern: EndpointPattern): string | undefined {
  if (typeof pattern !== 'string') return undefined
  try {
    const probe = pattern.replace(/:\*(?=\/|$)/, '')
    const url = new URL(probe)
    if (url.protocol !== 'http:' && url.protocol !== 'https:') return `${pattern} is not an http(s) URL`
    return undefined
  } catch {
    return `${JSON.stringify(pattern)} is not a URL (expected a base URL such as "http://127.0.0.1:8080/v1")`
  }
}
