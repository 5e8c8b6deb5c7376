import dgram from 'node:dgram'
import { AgentTapeError, redactUrl } from '@agent-tape/core/runtime'
import { isLoopbackHost } from '../endpoints.js'
import { type HostPattern, matchesHost } from './allow-hosts.js'
import { callerPackage, captureStack } from './client-path.js'
import type { NodePatch } from './node-patch.js'
import { type NetworkOwner, networkOwner } from './owner.js'

export interface UdpGuardConfig {
  allowHosts: readonly HostPattern[]
}

type Method = (this: dgram.Socket, ...args: unknown[]) => unknown

/**
 * Refuses UDP datagrams while a tape records or replays, as the socket guard refuses TCP
 * connections: `socket.send` to an address, and `socket.connect` (after which `send` names no
 * address). Loopback (the default address of `send`) and hosts in `allowHosts` pass. A refused
 * `send` or `connect` fails its callback, or the socket's `error` event, on the next tick, as a
 * failed lookup of the address would.
 */
export const udpGuard: NodePatch<UdpGuardConfig> = {
  name: 'udp-guard',
  apply(configs) {
    const proto = dgram.Socket.prototype as unknown as Record<'send' | 'connect', Method>
    const { send, connect } = proto
    proto.send = function guardedSend(this: dgram.Socket, ...args: unknown[]) {
      const refusal = judge(sendTarget(args), 'socket.send', configs, guardedSend)
      if (!refusal) return send.apply(this, args)
      fail(this, args, refusal)
      return undefined
    }
    proto.connect = function guardedConnect(this: dgram.Socket, ...args: unknown[]) {
      const port = typeof args[0] === 'number' ? args[0] : Number(args[0])
      const address = typeof args[1] === 'string' ? args[1] : undefined
      const refusal = judge({ port, address }, 'socket.connect', configs, guardedConnect)
      if (!refusal) return connect.apply(this, args)
      fail(this, args, refusal)
      return undefined
    }
    return {
      state: undefined,
      restore: () => {
        proto.send = send
        proto.connect = connect
      },
    }
  },
}

interface UdpTarget {
  port: number | undefined
  /** Undefined: the default (loopback), or the connected peer, which `connect` judged. */
  address: string | undefined
}

/** `send(msg[, offset, length], port[, address][, callback])`; no port: a connected socket. */
function sendTarget(args: unknown[]): UdpTarget {
  const at = typeof args[1] === 'number' && typeof args[2] === 'number' && args.length >= 4 ? 3 : 1
  const port = args[at]
  if (typeof port !== 'number' && !(typeof port === 'string' && /^\d+$/.test(port)))
    return { port: undefined, address: undefined }
  const address = args[at + 1]
  return { port: Number(port), address: typeof address === 'string' ? address : undefined }
}

function judge(
  target: UdpTarget,
  method: string,
  configs: ReadonlySet<UdpGuardConfig>,
  guarded: Method,
): AgentTapeError | undefined {
  const { address, port } = target
  if (address === undefined || address === '') return undefined
  const owner = networkOwner()
  if (!owner) return undefined
  if (isLoopbackHost(address)) return undefined
  if (
    matchesHost(
      address,
      port,
      [...configs].flatMap((c) => c.allowHosts),
    )
  )
    return undefined
  const error = udpRefusal(address, port, method, owner, callerPackage(captureStack(guarded)))
  owner.report(error)
  return error
}

function udpRefusal(
  address: string,
  port: number | undefined,
  method: string,
  owner: NetworkOwner,
  caller: string | undefined,
): AgentTapeError {
  const where = port === undefined || Number.isNaN(port) ? address : `${address}:${port}`
  const from = caller ? `dgram (${method}), called by ${caller}` : `dgram (${method})`
  const handled = owner.inWorker
    ? 'agent-tape records and replays nothing done in a worker thread'
    : 'agent-tape records and replays HTTP requests, not UDP datagrams'
  const why = owner.replaying
    ? `${owner.who('this datagram was sent')}; ${handled}, so the datagram was refused before it left the machine`
    : `${owner.who('this datagram was sent')}; ${handled}, so a replay could not answer it. The datagram was refused before it left the machine`
  return new AgentTapeError('ERR_TAPE_NETWORK', {
    what: `Blocked a UDP datagram to ${redactUrl(where)} from ${from}`,
    why,
    fix: `Keep UDP traffic out of the tape's test (a metrics or tracing exporter can be disabled in tests), or, if ${address} is a local service the test may reach for real, add it to allowHosts`,
  })
}

/** Fails a refused call as dgram fails one: its callback, else the socket's `error` event. */
function fail(socket: dgram.Socket, args: unknown[], error: AgentTapeError): void {
  const callback = args.at(-1)
  if (typeof callback === 'function') process.nextTick(callback as (e: Error) => void, error)
  else process.nextTick(() => socket.emit('error', error))
}
