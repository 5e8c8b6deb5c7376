import dns from 'node:dns'
import { isIP } from 'node:net'
import { AgentTapeError } from '@agent-tape/core/runtime'
import { isLoopbackHost } from '../endpoints.js'
import { type HostPattern, matchesHostName } from './allow-hosts.js'
import { callerPackage, captureStack } from './client-path.js'
import { isLookupForAllowedConnection } from './lookup-pass.js'
import type { NodePatch } from './node-patch.js'
import { type NetworkOwner, networkOwner } from './owner.js'

export interface DnsGuardConfig {
  allowHosts: readonly HostPattern[]
}

/** A function of `node:dns` that asks a resolver, the name it is known by, and how it answers. */
interface Query {
  target: Record<string, unknown>
  name: string
  /** `dns.lookup`, `a dns.Resolver`, … */
  client: string
  style: 'callback' | 'promise'
}

type Fn = (this: unknown, ...args: unknown[]) => unknown

/** Every function that asks a resolver: `lookup` (getaddrinfo), `lookupService`, `resolve*`, `reverse`. */
function asksResolver(name: string, value: unknown): boolean {
  return (
    typeof value === 'function' &&
    (name === 'lookup' || name === 'lookupService' || name === 'reverse' || name.startsWith('resolve'))
  )
}

function queries(): Query[] {
  const promises = dns.promises
  const targets: [Record<string, unknown>, string, Query['style']][] = [
    [dns as unknown as Record<string, unknown>, 'dns.', 'callback'],
    [dns.Resolver.prototype as unknown as Record<string, unknown>, 'a dns.Resolver (', 'callback'],
    [promises as unknown as Record<string, unknown>, 'dns.promises.', 'promise'],
    [
      promises.Resolver.prototype as unknown as Record<string, unknown>,
      'a dns.promises.Resolver (',
      'promise',
    ],
  ]
  return targets.flatMap(([target, prefix, style]) =>
    Object.getOwnPropertyNames(target)
      .filter((name) => asksResolver(name, target[name]))
      .map((name) => ({
        target,
        name,
        style,
        client: prefix.endsWith('(') ? `${prefix}${name})` : `${prefix}${name}`,
      })),
  )
}

/**
 * Refuses DNS queries while a tape records or replays, as the socket guard refuses connections:
 * `dns.lookup` (what every connection by name asks, and `dns/promises`'), `dns.lookupService`,
 * `resolve*` and `reverse` of the module and of a `Resolver`, callback and promise style. Loopback
 * names, IP addresses given to `lookup` (answered without a query), hosts in `allowHosts` and the
 * lookup of a connection the socket guard let through pass. The module's own functions are bound
 * copies of the `Resolver`'s, so both are wrapped (a call through both is judged once: the outer
 * refuses it, or both let it pass). Outside tapes it costs a lookup in the tape context per call.
 */
export const dnsGuard: NodePatch<DnsGuardConfig> = {
  name: 'dns-guard',
  apply(configs) {
    const restore: (() => void)[] = []
    const wrapAll = (targets: Query[]) => {
      for (const query of targets) {
        const original = query.target[query.name] as Fn
        if ((original as { [GUARD]?: true })[GUARD]) continue
        const guarded = guard(query, original, configs)
        query.target[query.name] = guarded
        restore.push(() => {
          if (query.target[query.name] === guarded) query.target[query.name] = original
        })
      }
    }
    wrapAll(queries())
    // `setServers` binds the module's functions again, from the Resolver's (wrapped) prototype:
    // wrapped again, so that a refusal names `dns.resolve4` rather than a Resolver.
    for (const [target, prefix] of [
      [dns, 'dns.'],
      [dns.promises, 'dns.promises.'],
    ] as const) {
      const record = target as unknown as Record<string, unknown>
      const setServers = record.setServers as Fn
      const rewrap = function setServersAndGuard(this: unknown, ...args: unknown[]) {
        const result = setServers.apply(this, args)
        wrapAll(queries().filter((q) => q.target === record && q.client.startsWith(prefix)))
        return result
      }
      record.setServers = rewrap
      restore.push(() => {
        if (record.setServers === rewrap) record.setServers = setServers
      })
    }
    return {
      state: undefined,
      restore: () => {
        for (const undo of restore) undo()
      },
    }
  },
}

const GUARD = Symbol('agent-tape.dns-guarded')

function guard(query: Query, original: Fn, configs: ReadonlySet<DnsGuardConfig>): Fn {
  const guarded = function guardedQuery(this: unknown, ...args: unknown[]) {
    const refusal = judge(query, args[0], configs, guarded)
    if (refusal === undefined) return original.apply(this, args)
    if (query.style === 'promise') return Promise.reject(refusal)
    const callback = lastFunction(args)
    // No callback: node's own validation throws, as it would without the guard.
    if (!callback) return original.apply(this, args)
    process.nextTick(callback, refusal)
    return undefined
  }
  Object.defineProperty(guarded, 'name', { value: original.name })
  Object.defineProperty(guarded, GUARD, { value: true })
  return guarded
}

function judge(
  query: Query,
  name: unknown,
  configs: ReadonlySet<DnsGuardConfig>,
  guarded: Fn,
): AgentTapeError | undefined {
  // Removed (a bound copy made by `setServers` outlives the removal): nothing is refused.
  if (typeof name !== 'string' || configs.size === 0) return undefined
  const owner = networkOwner()
  if (!owner) return undefined
  const host = name.replace(/^\[|\]$/g, '')
  // An address given to lookup is answered without asking anyone.
  if (query.name === 'lookup' && isIP(host) !== 0) return undefined
  if (isLoopbackHost(host) || isLookupForAllowedConnection(host)) return undefined
  if (
    matchesHostName(
      host,
      [...configs].flatMap((c) => c.allowHosts),
    )
  )
    return undefined
  const error = dnsRefusal(query, host, owner, callerPackage(captureStack(guarded)))
  owner.report(error)
  return error
}

function dnsRefusal(
  query: Query,
  host: string,
  owner: NetworkOwner,
  caller: string | undefined,
): AgentTapeError {
  const reverse = query.name === 'reverse' || query.name === 'lookupService'
  const asked =
    query.name === 'lookup' || reverse
      ? `a ${reverse ? 'reverse ' : ''}DNS lookup of ${host}`
      : `a DNS query (${query.name}) for ${host}`
  const from = caller ? `${query.client}, called by ${caller}` : query.client
  const handled = owner.inWorker
    ? 'agent-tape records and replays nothing done in a worker thread'
    : 'agent-tape records and replays HTTP requests, not DNS queries'
  const why = owner.replaying
    ? `${owner.who('this query was made')}; ${handled}, so the query was refused before it left the machine`
    : `${owner.who('this query was made')}; ${handled}, so a replay could not answer it. The query was refused before it left the machine`
  return new AgentTapeError('ERR_TAPE_NETWORK', {
    what: `Blocked ${asked} from ${from}`,
    why,
    fix: `Let the HTTP client resolve the host itself (agent-tape answers fetch, node:http(s) and node:http2 without a lookup), or, if ${host} is a local service the test may reach for real, add it to allowHosts`,
  })
}

function lastFunction(args: unknown[]): ((error: Error) => void) | undefined {
  for (let i = args.length - 1; i >= 0; i--)
    if (typeof args[i] === 'function') return args[i] as (e: Error) => void
  return undefined
}
