import type { Tape } from '@agent-tape/core/internal'
import { findSessionCodec } from '../codecs/index.js'
import {
  type DispatchHandler,
  deliverError,
  deliverResponse,
  deliverUpgrade,
} from '../network/deliver-response.js'
import { type DispatchOptions, dispatchHeaders } from '../network/dispatch-request.js'
import type { Handshake, SessionSettings } from './session-ends.js'
import { socketPair, type UpgradeHead } from './socket-pair.js'
import { serveSession } from './taped-session.js'
import type { UpgradeCall } from './upgrade-request.js'
import { acceptUpgrade } from './ws-module.js'

/**
 * The WebSocket an undici dispatch upgrades to (undici's `WebSocket`, the global one of Node 22
 * and later), or `undefined` for any other dispatch.
 */
export function dispatchedUpgradeOf(options: DispatchOptions): UpgradeCall | undefined {
  if (options.upgrade !== 'websocket' || options.origin === undefined) return undefined
  let url: URL
  try {
    url = new URL(options.path ?? '/', options.origin)
  } catch {
    return undefined
  }
  url.protocol = url.protocol === 'https:' ? 'wss:' : 'ws:'
  const headers: Record<string, string> = { connection: 'Upgrade', upgrade: 'websocket' }
  dispatchHeaders(options.headers).forEach((value, name) => {
    headers[name] = value
  })
  return { url, given: undefined, options: {}, callback: undefined, headers, codec: findSessionCodec(url) }
}

/**
 * A WebSocket session of `tape` that undici dispatched: the handler gets the `101` and one end
 * of an in-memory socket, whose other end this boundary serves (see `serveSession`).
 */
export function openDispatchedSession(
  tape: Tape,
  call: UpgradeCall,
  handler: DispatchHandler,
  settings: SessionSettings,
): void {
  const [client, server] = socketPair(call.url.protocol === 'wss:')
  const head: UpgradeHead = {
    method: 'GET',
    url: `${call.url.pathname}${call.url.search}`,
    headers: call.headers,
  }
  const handshake: Handshake = {
    accept(protocol, onOpen) {
      // The server side writes its `101`: the handler gets its headers, the socket the frames after.
      server.headTaken = (written) => {
        const headers: Record<string, string> = {}
        for (const line of written.split('\r\n').slice(1)) {
          const colon = line.indexOf(':')
          if (colon > 0) headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim()
        }
        deliverUpgrade(handler, headers, client)
      }
      acceptUpgrade(server, head, Buffer.alloc(0), protocol, onOpen)
    },
    refuse: (status, headers, body) => void deliverResponse(handler, new Response(body, { status, headers })),
    fail: (error) => deliverError(handler, error),
  }
  serveSession({ tape, call, handshake }, settings)
}
