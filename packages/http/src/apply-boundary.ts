import http from 'node:http'
import http2 from 'node:http2'
import https from 'node:https'
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
import { removeStandIns, standInClass, standInFunction } from './stand-ins.js'

/**
 * Every way out of the process the boundary takes over, applied in this order and removed in the
 * reverse one (see {@link InterceptionGuard}).
 */
const GUARDS: readonly InterceptionGuard[] = [requestGuard, http2Guard, networkGuard]

/**
 * What the first tape of a process loads (see `prepareBoundary`): stands in for the request
 * functions of `node:http`/`https` and `http2.connect` as the setup stood in for `fetch`, applies
 * every guard behind them, and loads what decides a request for a tape. Returns the removal of
 * what it applied.
 */
export async function applyBoundary(prepared: PreparedBoundary): Promise<() => void> {
  await loadRequestHandling()
  const standIns = {
    fetch: prepared.fetchStandIn,
    requests: [
      ...[http, https].flatMap((module) => [
        standInFunction(module, 'request'),
        standInFunction(module, 'get'),
      ]),
      standInClass(http, 'ClientRequest'),
    ],
    http2: standInFunction(http2, 'connect'),
  }
  const context: GuardContext = {
    config: prepared.settings,
    perform: (request) => performingForTape(() => prepared.networkFetch(forwardedRequest(request))),
    standIns,
  }
  const removals = GUARDS.map((guard) => guard.install(context))
  // `import { request } from 'node:http'` (and `lookup` from node:dns) reads a snapshot of the
  // module's exports: refreshed, an ES module's named import sees what stands in now.
  syncBuiltinESMExports()
  return () => {
    for (const remove of [...removals].reverse()) remove()
    removeStandIns([...standIns.requests, standIns.http2])
    syncBuiltinESMExports()
  }
}
