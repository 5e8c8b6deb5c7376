import type { ClientRequest } from 'node:http'
import { currentTape } from '@agent-tape/core/context'
import { classifyUrl, passesThrough } from '../endpoints.js'
import type { BoundaryConfig } from '../handle-request.js'
import { isPerformingForTape } from '../network/performing.js'
import { openTapedSession } from './taped-session.js'
import { type RequestFunction, webSocketUpgradeOf } from './upgrade-request.js'

/**
 * What the WebSocket guard does with a call of `http.request` or `https.request` (`secure`):
 * a WebSocket upgrade a tape records or replays becomes a taped session (see
 * `openTapedSession`); any other request is left to the rest of the boundary (`undefined`). The
 * boundary's own upstream session, while recording, goes out as Node would send it.
 */
export function takeWebSocketUpgrade(
  settings: BoundaryConfig,
  request: RequestFunction,
  args: unknown[],
  secure: boolean,
): ClientRequest | undefined {
  const call = webSocketUpgradeOf(args, secure)
  if (!call) return undefined
  if (isPerformingForTape()) return request(...args)
  const tape = currentTape()
  if (!tape || tape.action === 'passthrough') return undefined
  const url = new URL(call.url)
  url.protocol = call.url.protocol === 'wss:' ? 'https:' : 'http:'
  const requestClass = classifyUrl(url, settings.modelEndpoints, settings.allowHosts, settings.tapeHosts)
  if (passesThrough(requestClass)) return undefined
  return openTapedSession(tape, call, request, settings)
}
