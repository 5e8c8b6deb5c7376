import net from 'node:net'
import { AgentTapeError, redactUrl } from '@agent-tape/core/runtime'
import { type EndpointPattern, isLoopbackHost, matchesEndpointHost } from '../endpoints.js'
import { type HostPattern, matchesHost } from './allow-hosts.js'
import { captureStack, describeClient } from './client-path.js'
import { lookingUpFor } from './lookup-pass.js'
import type { NodePatch } from './node-patch.js'
import { type NetworkOwner, networkOwner } from './owner.js'

export interface SocketGuardConfig {
  modelEndpoints: readonly EndpointPattern[]
  allowHosts: readonly HostPattern[]
  /** Whose interception the requests went through: agent-tape's own, or the team's MSW server. */
  interception?: 'boundary' | 'msw'
}

interface Target {
  host: string
  port: number | undefined
  /** A Unix socket or named pipe: local by construction. */
  path: string | undefined
}

type Connect = (this: net.Socket, ...args: unknown[]) => net.Socket

// msw 3's socket layer, as built (`lib/node/net-*.js`) and as Jest prints it through its source
// maps (`src/interceptors/net/*.ts`).
const MSW_SOCKET_LAYER =
  /[\\/]@mswjs[\\/]interceptors[\\/](?:lib[\\/]node[\\/]net-|src[\\/]interceptors[\\/]net[\\/])/
// The frames of msw 3's socket layer that open a real connection: a request passed through.
const MSW_REAL_CONNECTION = /[ .](?:passthrough|createRealSocket|#createDirectConnection) \(/
// `describeClient`'s name for node:http2, which the boundary answers: its refusal says why not this time.
const HTTP2_CLIENT = 'node:http2'

/**
 * The last line of "nothing leaves in replay": a check on every TCP and TLS connection the
 * process opens (`net.Socket#connect`, which every client reaches: fetch, undici's clients and
 * pools, node:http and https with any agent, http2 sessions the tape did not open, axios, got,
 * raw sockets). While a tape records or replays, a connection that no boundary captured is
 * refused and fails the tape, naming the client and host, unless it goes to loopback (and not to
 * a model endpoint) or to a host in `allowHosts`. Outside tapes, and in `live` mode, it lets
 * everything through.
 */
export const socketGuard: NodePatch<SocketGuardConfig> = {
  name: 'socket-guard',
  apply(configs) {
    const original = net.Socket.prototype.connect as unknown as Connect
    const guarded = function guardedConnect(this: net.Socket, ...args: unknown[]) {
      const target = targetOf(args)
      const refusal = judge(target, configs)
      if (refusal === undefined) return original.apply(this, args)
      // Let through while a tape runs: the DNS guard passes the lookup `connect` makes for it.
      if (refusal === ALLOWED) return lookingUpFor(target.host, () => original.apply(this, args))
      // Until it fails the socket reads as connecting, so that no client (http2) takes it for open.
      const socket = this as net.Socket & { connecting: boolean }
      socket.connecting = true
      // Failed asynchronously, as a refused connection fails: every client then reports the error.
      process.nextTick(() => socket.destroy(refusal))
      return socket
    } as typeof net.Socket.prototype.connect
    net.Socket.prototype.connect = guarded
    return {
      state: undefined,
      restore: () => {
        net.Socket.prototype.connect = original as unknown as typeof net.Socket.prototype.connect
      },
    }
  },
}

function targetOf(args: unknown[]): Target {
  // net.connect() and friends pass one normalized [options, callback] array; direct calls pass
  // (options, cb), (port, host, cb) or (path, cb).
  const first = Array.isArray(args[0]) ? args[0][0] : args[0]
  if (typeof first === 'object' && first !== null) {
    const o = first as { host?: string; hostname?: string; port?: number | string; path?: string }
    if (o.path) return { host: '', port: undefined, path: o.path }
    return { host: o.host ?? o.hostname ?? 'localhost', port: toPort(o.port), path: undefined }
  }
  if (typeof first === 'string' && !/^\d+$/.test(first)) return { host: '', port: undefined, path: first }
  const host = typeof args[1] === 'string' ? args[1] : 'localhost'
  return { host, port: toPort(first as number | string | undefined), path: undefined }
}

function toPort(port: number | string | undefined): number | undefined {
  if (port === undefined || port === '') return undefined
  const n = Number(port)
  return Number.isInteger(n) ? n : undefined
}

/** A connection made while a tape runs, to a host it may reach (loopback, `allowHosts`). */
const ALLOWED = 'allowed'

function judge(
  target: Target,
  configs: ReadonlySet<SocketGuardConfig>,
): AgentTapeError | typeof ALLOWED | undefined {
  if (target.path !== undefined) return undefined
  const owner = networkOwner()
  if (!owner) return undefined
  const endpoints = [...configs].flatMap((c) => c.modelEndpoints)
  const allowed = [...configs].flatMap((c) => c.allowHosts)
  if (matchesHost(target.host, target.port, allowed)) return ALLOWED
  if (isLoopbackHost(target.host) && !matchesEndpointHost(target.host, target.port, endpoints)) return ALLOWED
  const viaMsw = [...configs].some((c) => c.interception === 'msw')
  const stack = captureStack()
  // msw 3 intercepts at the socket: every client socket connects through its layer to a handle
  // that opens no connection until a handler has declined the request. Those connects pass; the
  // real connection of a request MSW lets through (its passthrough) is judged like any other.
  if (viaMsw && MSW_SOCKET_LAYER.test(stack) && !MSW_REAL_CONNECTION.test(stack)) return ALLOWED
  // In a worker nothing is intercepted: Node's fetch and node:http are refused as themselves.
  const client = describeClient(stack)
  const error = refusal(
    target,
    owner.inWorker ? client.replace(/ with an? (?:dispatcher|agent) .*$/, '') : client,
    owner,
    viaMsw,
  )
  owner.report(error)
  return error
}

function refusal(target: Target, client: string, owner: NetworkOwner, viaMsw: boolean): AgentTapeError {
  const where = target.port === undefined ? target.host : `${target.host}:${target.port}`
  const who = owner.who('this connection was opened')
  const http2 = !viaMsw && !owner.inWorker && client === HTTP2_CLIENT
  const handled = owner.inWorker
    ? 'agent-tape records and replays no request made in a worker thread'
    : viaMsw
      ? 'no MSW handler answered this request, and tapeHandlers() takes only model requests and the hosts listed in its `hosts` option'
      : http2
        ? owner.tape
          ? "agent-tape answers the sessions http2.connect opens once agent-tape's setup has run, and this one was opened through a copy of connect taken before it (or with an authority that is not a URL)"
          : "agent-tape answers a node:http2 session opened inside a tape's test, and cannot tell which tape this one belongs to"
        : "agent-tape answers fetch, undici's global dispatcher, node:http/https and node:http2, not this client"
  const why = owner.replaying
    ? `${who}; ${handled}, so the connection was refused before it opened`
    : `${who}; ${handled}, so the request would be missing from the cassette and fail when replayed. The connection was refused before it opened`
  const local = `if ${target.host} is a local service the test may reach for real (a database, a test server), add it to allowHosts`
  return new AgentTapeError('ERR_TAPE_NETWORK', {
    what: `Blocked a connection to ${redactUrl(where)} from ${client}`,
    why,
    fix: owner.inWorker
      ? `Make the request from the main thread (the test, or code it awaits), or, ${local}`
      : viaMsw
        ? `Mock ${target.host} with an MSW handler, let the tape record it with tapeHandlers({ hosts: ['${target.host}'] }), or, if it is a local service the test may reach for real, add it to allowHosts`
        : http2
          ? `Open the session from the test (or code it awaits) with http2.connect as node:http2 exports it, or, ${local}`
          : `Send the request with fetch, node:http(s) or node:http2 (what SDKs use by default), or, ${local}`,
  })
}
