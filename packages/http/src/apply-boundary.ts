import { syncBuiltinESMExports } from 'node:module'
import type { PreparedBoundary } from './boundary.js'
import { forwardedRequest } from './forwarded-request.js'
import {
  type GuardContext,
  http2Guard,
  type InterceptionGuard,
  networkGuard,
  requestGuard,
} from './interception-guards.js'
import { performingForTape } from './network/performing.js'
import { loadRequestHandling } from './request-handling.js'

/**
 * Every way out of the process the boundary takes over, applied in this order and removed in the
 * reverse one (see {@link InterceptionGuard}).
 */
const GUARDS: readonly InterceptionGuard[] = [requestGuard, http2Guard, networkGuard]

/**
 * What the first tape of a process loads (see `prepareBoundary`): applies every guard behind the
 * stand-ins the setup put in place, and loads what decides a request for a tape. Returns the
 * removal of what it applied.
 */
export async function applyBoundary(prepared: PreparedBoundary): Promise<() => void> {
  await loadRequestHandling()
  const context: GuardContext = {
    config: prepared.settings,
    perform: (request) => performingForTape(() => prepared.networkFetch(forwardedRequest(request))),
    prepared,
  }
  const removals = GUARDS.map((guard) => guard.install(context))
  // `import { lookup } from 'node:dns'` reads a snapshot of the module's exports.
  syncBuiltinESMExports()
  return () => {
    for (const remove of [...removals].reverse()) remove()
    syncBuiltinESMExports()
  }
}
