import { syncBuiltinESMExports } from 'node:module'
import type { PreparedBoundary } from './boundary.js'
import { forwardedRequest } from './forwarded-request.js'
import {
  dispatcherGuard,
  fetchGuard,
  type GuardContext,
  http2Guard,
  type InterceptionGuard,
  networkGuard,
  nodeRequestGuard,
  webSocketGuard,
} from './interception-guards.js'
import { performingForTape } from './network/performing.js'
import { loadRequestHandling } from './request-handling.js'

/**
 * Every way out of the process the boundary takes over, applied in this order and removed in the
 * reverse one (see {@link InterceptionGuard}).
 */
const GUARDS: readonly InterceptionGuard[] = [
  fetchGuard,
  nodeRequestGuard,
  dispatcherGuard,
  http2Guard,
  networkGuard,
  webSocketGuard,
]

/**
 * What the first tape of a process loads (see `prepareBoundary`): every guard, applied behind the
 * setup's stand-ins, and what decides a request for a tape. Returns the removal of what it
 * applied.
 */
export async function applyBoundary(prepared: PreparedBoundary): Promise<() => void> {
  await loadRequestHandling()
  const context: GuardContext = {
    config: prepared.settings,
    perform: (request) => performingForTape(() => prepared.networkFetch(forwardedRequest(request))),
    prepared,
  }
  const removals = GUARDS.map((guard) => guard.install(context))
  // `import { request } from 'node:http'` (and `lookup` from node:dns) reads a snapshot of the
  // module's exports: refreshed, an ES module's named import sees what stands in now.
  syncBuiltinESMExports()
  return () => {
    for (const remove of [...removals].reverse()) remove()
    syncBuiltinESMExports()
  }
}
