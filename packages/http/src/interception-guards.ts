import { onTapeRun } from '@agent-tape/core/context'
import { ClientRequestInterceptor } from '@mswjs/interceptors/ClientRequest'
import { FetchInterceptor } from '@mswjs/interceptors/fetch'
import type { BoundaryConfig } from './handle-request.js'
import { interceptHttp2 } from './http2/intercept-connect.js'
import type { HostPattern } from './network/allow-hosts.js'
import type { ChildProcessPolicy } from './network/child-processes.js'
import { guardGlobalDispatchers } from './network/dispatcher-guard.js'
import { installNetworkGuards } from './network/guards.js'
import { handleRequestWhenTaped } from './request-handling.js'
import { patchBehind, type StandIn, unpatchBehind } from './stand-ins.js'

/** What every guard of an installed boundary reads. */
export interface GuardContext {
  /** The installed boundary's configuration, read on every request (options added later included). */
  config: BoundaryConfig & { allowHosts: HostPattern[]; childProcesses?: ChildProcessPolicy }
  /** Sends a request to the network without it being intercepted again. */
  perform: (request: Request) => Promise<Response>
  /** What stands in for what the guards take over: a guard patches behind them. */
  standIns: { fetch: StandIn; requests: StandIn[]; http2: StandIn }
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

/**
 * `fetch`, `node:http`/`https` and undici's global dispatchers: the interceptors of
 * `@mswjs/interceptors` behind the stand-ins, and the dispatcher guard.
 */
export const requestGuard: InterceptionGuard = {
  name: "fetch, node:http and node:https, and undici's global dispatchers",
  install({ config, perform, standIns: { fetch, requests } }) {
    const interceptors = [new ClientRequestInterceptor(), new FetchInterceptor()] as const
    const standIns = [fetch, ...requests]
    patchBehind(standIns, () => {
      // Each interceptor applied by itself, as a BatchInterceptor would do: that class lives in the
      // package's main entry, which loads more than the two interceptors need.
      for (const interceptor of interceptors) {
        interceptor.on('request', async ({ request, controller }) => {
          const outcome = await handleRequestWhenTaped(request, config, perform)
          // The caller aborted meanwhile: the interceptor has already failed its request with the
          // caller's own reason, which is what the caller must see (an SDK's timeout error).
          if (request.signal.aborted) return
          if (outcome.type === 'respond') controller.respondWith(outcome.response)
          else if (outcome.type === 'error') controller.errorWith(outcome.error)
        })
        interceptor.apply()
      }
    })
    const dispatchers = guardGlobalDispatchers(config, perform)
    const stopRefreshing = onTapeRun(dispatchers.refresh)
    return () => {
      stopRefreshing()
      dispatchers.dispose()
      // Each interceptor puts back the original it wrapped; what stands over it now stays.
      unpatchBehind(standIns, () => {
        for (const interceptor of interceptors) interceptor.dispose()
      })
    }
  },
}

export const http2Guard: InterceptionGuard = {
  name: 'node:http2 sessions',
  install({ config, standIns: { http2 } }) {
    const remove = patchBehind([http2], () => interceptHttp2(config))
    return () => unpatchBehind([http2], remove)
  },
}

export const networkGuard: InterceptionGuard = {
  name: 'connections, DNS, UDP, worker threads and child processes',
  install: ({ config }) => installNetworkGuards(config),
}
