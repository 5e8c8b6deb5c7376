import { createRequire } from 'node:module'
import { claimingTapeCount, currentTape, onTapeRun } from '@agent-tape/core/context'
import type { ClientRequestInterceptor } from '@mswjs/interceptors/ClientRequest'
import type { PreparedBoundary } from './boundary.js'
import type { BoundaryConfig } from './handle-request.js'
import { interceptHttp2 } from './http2/intercept-connect.js'
import type { HostPattern } from './network/allow-hosts.js'
import type { ChildProcessPolicy } from './network/child-processes.js'
import { guardGlobalDispatchers } from './network/dispatcher-guard.js'
import { installNetworkGuards } from './network/guards.js'
import { handleRequestWhenTaped } from './request-handling.js'
import { patchBehind, unpatchBehind } from './stand-ins.js'
import { createTapedFetch } from './taped-fetch.js'
import { takeWebSocketUpgrade } from './websocket/take-upgrade.js'
import type { RequestFunction } from './websocket/upgrade-request.js'

/** What every guard of an installed boundary reads. */
export interface GuardContext {
  /** The installed boundary's configuration, read on every request (options added later included). */
  config: BoundaryConfig & { allowHosts: HostPattern[]; childProcesses?: ChildProcessPolicy }
  /** Sends a request to the network without it being intercepted again. */
  perform: (request: Request) => Promise<Response>
  /** The stand-ins the setup put in place, and what a guard tells them: a guard patches behind them. */
  prepared: PreparedBoundary
}

/**
 * One way out of the process that the HTTP boundary takes over once the first tape opens:
 * requests it routes to the tape, or connections it refuses while a tape records or replays.
 * `install` patches Node (or a global), behind the stand-ins where there are some, and returns
 * the removal of exactly that.
 */
export interface InterceptionGuard {
  /** What it takes over, as the docs name it. */
  readonly name: string
  install(context: GuardContext): () => void
}

/** `fetch`: answered by the boundary itself, behind the setup's stand-in (see taped-fetch.ts). */
export const fetchGuard: InterceptionGuard = {
  name: 'fetch',
  install({ config, perform, prepared }) {
    const { fetch } = prepared.standIns
    fetch.patched = createTapedFetch(config, perform, prepared.networkFetch)
    return () => {
      fetch.patched = undefined
    }
  },
}

/**
 * `node:http` and `node:https`: the ClientRequest interceptor of `@mswjs/interceptors`, applied
 * behind the stand-ins by the first request a tape claims. Applied, it also wraps the global
 * `Headers`, `Request` and `Response` (to keep raw header names), which would slow every `fetch`
 * of the process: a run whose tapes only `fetch` never applies it.
 */
export const nodeRequestGuard: InterceptionGuard = {
  name: 'node:http and node:https',
  install({ config, perform, prepared }) {
    const { standIns } = prepared
    let interceptor: ClientRequestInterceptor | undefined
    prepared.beforeRequest = () => {
      if (interceptor || (!currentTape() && claimingTapeCount() === 0)) return
      // Loaded now, synchronously: `http.request` returns its request at once. The CommonJS
      // build, whichever build runs this: the only copy of the interceptor the boundary uses.
      const { ClientRequestInterceptor } = requireHere('@mswjs/interceptors/ClientRequest') as {
        ClientRequestInterceptor: new () => ClientRequestInterceptor
      }
      const applied = new ClientRequestInterceptor()
      interceptor = applied
      patchBehind(standIns.requests, () => {
        applied.on('request', async ({ request, controller }) => {
          const outcome = await handleRequestWhenTaped(request, config, perform)
          // The caller aborted meanwhile: the interceptor has already failed its request with the
          // caller's own reason, which is what the caller must see (an SDK's timeout error).
          if (request.signal.aborted) return
          if (outcome.type === 'respond') controller.respondWith(outcome.response)
          else if (outcome.type === 'error') controller.errorWith(outcome.error)
        })
        applied.apply()
      })
    }
    return () => {
      prepared.beforeRequest = undefined
      const applied = interceptor
      interceptor = undefined
      // The interceptor puts back the original it wrapped; what stands over it now stays.
      if (applied) unpatchBehind(standIns.requests, () => applied.dispose())
    }
  },
}

/** undici's global dispatchers: what reaches them without passing `fetch` (see dispatcher-guard.ts). */
export const dispatcherGuard: InterceptionGuard = {
  name: "undici's global dispatchers",
  install({ config, perform }) {
    const dispatchers = guardGlobalDispatchers(config, perform)
    const stopRefreshing = onTapeRun(dispatchers.refresh)
    return () => {
      stopRefreshing()
      dispatchers.dispose()
    }
  },
}

export const http2Guard: InterceptionGuard = {
  name: 'node:http2 sessions',
  install({ config, prepared: { standIns, earlySessions } }) {
    const remove = patchBehind(standIns.http2, () => interceptHttp2(config, earlySessions))
    return () => unpatchBehind(standIns.http2, remove)
  },
}

export const networkGuard: InterceptionGuard = {
  name: 'connections, DNS, UDP, worker threads and child processes',
  install({ config, prepared: { standIns } }) {
    const remove = patchBehind(standIns.network, () => installNetworkGuards(config))
    return () => unpatchBehind(standIns.network, remove)
  },
}

/**
 * WebSocket sessions opened by an HTTP/1.1 upgrade through `node:http(s)` (the `ws` package):
 * recorded and replayed frame by frame (see websocket/taped-session.ts), ahead of the
 * interceptor of `node:http(s)`, which answers requests, not sessions.
 */
export const webSocketGuard: InterceptionGuard = {
  name: 'WebSocket sessions over node:http and node:https',
  install({ config, prepared }) {
    prepared.takeUpgrade = (request, args, secure) =>
      takeWebSocketUpgrade(config, request as RequestFunction, args, secure)
    return () => {
      prepared.takeUpgrade = undefined
    }
  },
}

let required: NodeJS.Require | undefined

/** A `require` from this file, for a module that must load synchronously on first use. */
function requireHere(id: string): unknown {
  required ??= createRequire(import.meta.url)
  return required(id)
}
