import { claimingTapeCount, currentTape } from '@agent-tape/core/context'
import { claimsUrl, mayBeUndeclaredModel } from '../claims.js'
import type { BoundaryConfig, RequestOutcome } from '../handle-request.js'
import { handleRequestWhenTaped } from '../request-handling.js'
import { takeDispatchedUpgrade } from '../websocket/take-upgrade.js'
import { type DispatchHandler, deliverError, deliverResponse } from './deliver-response.js'
import { type DispatchOptions, dispatchBody, dispatchHeaders, dispatchUrl } from './dispatch-request.js'
import { isPerformingForTape } from './performing.js'

interface Dispatcher {
  dispatch(options: DispatchOptions, handler: DispatchHandler): boolean
}

// Node's built-in fetch and undici 7 read the first; undici 8 reads the second.
const GLOBAL_DISPATCHERS = [Symbol.for('undici.globalDispatcher.1'), Symbol.for('undici.globalDispatcher.2')]
const GUARDED = Symbol.for('agent-tape.guarded-dispatcher')

type Holder = Record<symbol, (Dispatcher & { [GUARDED]?: Dispatcher }) | undefined>

/**
 * Handles the requests that reach undici's global dispatchers without passing the `fetch`
 * interception: `fetch` and `request` from the undici package (7 or 8, for a proxy or
 * `fetch: undici.fetch` in an SDK client) and a `fetch` captured before the boundary was
 * installed. They are recorded and replayed like any other request. Dispatchers set later (undici
 * loaded by a test file, `setGlobalDispatcher`) are wrapped by {@link refresh} as each tape starts.
 */
export function guardGlobalDispatchers(
  config: BoundaryConfig,
  perform: (request: Request) => Promise<Response>,
): { refresh(): void; dispose(): void } {
  const holder = globalThis as unknown as Holder
  // Touching a fetch global loads Node's bundled undici, which creates its global dispatcher.
  void globalThis.Response
  const wrapped = new Map<symbol, Dispatcher>()
  const refresh = () => {
    for (const symbol of GLOBAL_DISPATCHERS) {
      const current = holder[symbol]
      if (!current || typeof current.dispatch !== 'function' || current[GUARDED]) continue
      const guard = Object.create(current) as Dispatcher & { [GUARDED]: Dispatcher }
      guard[GUARDED] = current
      guard.dispatch = (options, handler) => {
        // Outside every tape, while none claims such requests, nothing is read: it passes.
        if (!currentTape() && claimingTapeCount() === 0) return current.dispatch(options, handler)
        // A WebSocket (undici's) a tape records or replays is a session of its own.
        if (takeDispatchedUpgrade(config, options, handler)) return true
        const url = isPerformingForTape() ? undefined : dispatchUrl(options)
        if (!url || !(claimsUrl(url, config) || mayBeUndeclaredModel(options.method ?? 'GET', url, config)))
          return current.dispatch(options, handler)
        void capture(url, options, handler, current, config, perform)
        return true
      }
      holder[symbol] = guard
      wrapped.set(symbol, guard)
    }
  }
  refresh()
  return {
    refresh,
    dispose() {
      for (const [symbol, guard] of wrapped) {
        const original = (guard as { [GUARDED]?: Dispatcher })[GUARDED]
        if (holder[symbol] === guard && original) holder[symbol] = original
      }
      wrapped.clear()
    },
  }
}

async function capture(
  url: URL,
  options: DispatchOptions,
  handler: DispatchHandler,
  inner: Dispatcher,
  config: BoundaryConfig,
  perform: (request: Request) => Promise<Response>,
): Promise<void> {
  let outcome: RequestOutcome
  let body: Uint8Array | undefined
  try {
    const method = (options.method ?? 'GET').toUpperCase()
    const headers = dispatchHeaders(options.headers)
    body = await dispatchBody(options.body, headers)
    const hasBody = body !== undefined && method !== 'GET' && method !== 'HEAD'
    const request = new Request(url, { method, headers, ...(hasBody ? { body, duplex: 'half' } : {}) })
    outcome = await handleRequestWhenTaped(request, config, perform)
  } catch (error) {
    deliverError(handler, error instanceof Error ? error : new Error(String(error)))
    return
  }
  if (outcome.type === 'respond') await deliverResponse(handler, outcome.response)
  else if (outcome.type === 'error') deliverError(handler, outcome.error)
  else {
    try {
      inner.dispatch({ ...options, ...(body ? { body } : {}) }, handler)
    } catch (error) {
      deliverError(handler, error instanceof Error ? error : new Error(String(error)))
    }
  }
}
