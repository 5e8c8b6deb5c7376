import { ConfigError } from '@agent-tape/core/runtime'

/**
 * Hosts a tape test may reach for real in every mode, neither recorded nor blocked: a local
 * database, a search cluster, a service started by the test. A string is a host name, with an
 * optional port and a leading `*.` wildcard; a RegExp is tested against `host:port`.
 *
 * @example ['db.internal:5432', '*.svc.cluster.local', /^10\.0\.\d+\.\d+:9200$/]
 */
export type HostPattern = string | RegExp

export function matchesHost(
  host: string,
  port: number | undefined,
  patterns: readonly HostPattern[],
): boolean {
  const bare = host.replace(/^\[|\]$/g, '').toLowerCase()
  const hostPort = port === undefined ? bare : `${bare}:${port}`
  return patterns.some((pattern) => {
    if (pattern instanceof RegExp) return pattern.test(hostPort)
    const { name, port: wanted } = splitHostPattern(pattern)
    if (wanted !== undefined && wanted !== port) return false
    return name.startsWith('*.') ? bare.endsWith(name.slice(1)) : bare === name
  })
}

/**
 * Whether a host name, with no port to go with it (a DNS query), is one `patterns` list: a string
 * pattern by its name, whatever port it names; a RegExp tested against the name alone.
 */
export function matchesHostName(host: string, patterns: readonly HostPattern[]): boolean {
  const bare = host.replace(/^\[|\]$/g, '').toLowerCase()
  return patterns.some((pattern) => {
    if (pattern instanceof RegExp) return pattern.test(bare)
    const { name } = splitHostPattern(pattern)
    return name.startsWith('*.') ? bare.endsWith(name.slice(1)) : bare === name
  })
}

function splitHostPattern(pattern: string): { name: string; port: number | undefined } {
  const match = /^(\[[^\]]+\]|[^:]+)(?::(\d+))?$/.exec(pattern.trim().toLowerCase())
  if (!match) return { name: pattern, port: undefined }
  return { name: match[1]!.replace(/^\[|\]$/g, ''), port: match[2] ? Number(match[2]) : undefined }
}

export function assertHostPatterns(patterns: readonly unknown[]): void {
  for (const pattern of patterns) {
    if (pattern instanceof RegExp) continue
    if (
      typeof pattern === 'string' &&
      /^(?:\*\.)?(?:\[[0-9a-f:.]+\]|[a-z0-9_.-]+)(?::\d{1,5})?$/i.test(pattern)
    )
      continue
    throw new ConfigError({
      what: `Invalid allowHosts entry ${JSON.stringify(pattern)}`,
      why: 'an entry is a host name with an optional port and "*." wildcard, or a RegExp tested against "host:port"',
      fix: 'Write it as "db.internal", "db.internal:5432", "*.internal" or /^10\\.0\\.\\d+\\.\\d+:9200$/ (no scheme, no path)',
    })
  }
}
