import type { ClientRequest } from 'node:http'
import { currentTape } from '@agent-tape/core/context'
import { classifyUrl, passesThrough } from '../endpoints.js'
import type { BoundaryConfig } from '../handle-request.js'
import type { DispatchHandler } from '../network/deliver-response.js'
import type { DispatchOptions } from '../network/dispatch-request.js'
import { isPerformingForTape } from '../network/performing.js'
import { dispatchedUpgradeOf, openDispatchedSession } from './dispatched-session.js'
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
  if (passes(settings, call.url)) return undefined
  return openTapedSession(tape, call, request, settings)
}

/**
 * What the guard of undici's global dispatchers does with a dispatch: a WebSocket upgrade a tape
 * records or replays becomes a taped session (`true`: the handler is answered); anything else is
 * left to the guard (`false`).
 */
export function takeDispatchedUpgrade(
  settings: BoundaryConfig,
  options: DispatchOptions,
  handler: DispatchHandler,
): boolean {
  const call = dispatchedUpgradeOf(options)
  if (!call || isPerformingForTape()) return false
  const tape = currentTape()
  if (!tape || tape.action === 'passthrough' || passes(settings, call.url)) return false
  openDispatchedSession(tape, call, handler, settings)
  return true
}

/** Whether a session to `url` passes untaped (loopback that is not a model endpoint, `allowHosts`). */
function passes(settings: BoundaryConfig, sessionUrl: URL): boolean {
  const url = new URL(sessionUrl)
  url.protocol = sessionUrl.protocol === 'wss:' ? 'https:' : 'http:'
  return passesThrough(classifyUrl(url, settings.modelEndpoints, settings.allowHosts, settings.tapeHosts))
}
