import { onTapeRun } from '@agent-tape/core/context'
import type { HttpRequestEventMap, Interceptor } from '@mswjs/interceptors'
import { ClientRequestInterceptor } from '@mswjs/interceptors/ClientRequest'
import { FetchInterceptor } from '@mswjs/interceptors/fetch'
import type { BoundaryConfig } from './handle-request.js'
import { interceptHttp2 } from './http2/intercept-connect.js'
import type { HostPattern } from './network/allow-hosts.js'
import type { ChildProcessPolicy } from './network/child-processes.js'
import { guardGlobalDispatchers } from './network/dispatcher-guard.js'
import { installNetworkGuards } from './network/guards.js'
import { handleRequestWhenTaped } from './request-handling.js'

/** What every guard of an installed boundary reads. */
export interface GuardContext {
  /** The installed boundary's configuration, read on every request (options added later included). */
  config: BoundaryConfig & { allowHosts: HostPattern[]; childProcesses?: ChildProcessPolicy }
  /** Sends a request to the network without it being intercepted again. */
  perform: (request: Request) => Promise<Response>
}

/**
 * One way out of the process that the HTTP boundary takes over while it is installed: requests it
 * routes to the tape, or connections it refuses while a tape records or replays. `install` patches
 * Node (or a global) and returns the removal of exactly that.
 */
export interface InterceptionGuard {
  /** What it takes over, as the docs name it. */
  readonly name: string
  install(context: GuardContext): () => void
}

/**
 * An interceptor of `@mswjs/interceptors` applied by itself, as a BatchInterceptor would do: that
 * class lives in the package's main entry, which loads more than the two interceptors need.
 */
function interceptorGuard(name: string, create: () => Interceptor<HttpRequestEventMap>): InterceptionGuard {
  return {
    name,
    install({ config, perform }) {
      const interceptor = create()
      interceptor.on('request', async ({ request, controller }) => {
        const outcome = await handleRequestWhenTaped(request, config, perform)
        // The caller aborted meanwhile: the interceptor has already failed its request with the
        // caller's own reason, which is what the caller must see (an SDK's timeout error).
        if (request.signal.aborted) return
        if (outcome.type === 'respond') controller.respondWith(outcome.response)
        else if (outcome.type === 'error') controller.errorWith(outcome.error)
      })
      interceptor.apply()
      return () => interceptor.dispose()
    },
  }
}

export const clientRequestGuard = interceptorGuard(
  'node:http and node:https',
  () => new ClientRequestInterceptor(),
)

export const fetchGuard = interceptorGuard('fetch', () => new FetchInterceptor())

export const http2Guard: InterceptionGuard = {
  name: 'node:http2 sessions',
  install: ({ config }) => interceptHttp2(config),
}

export const networkGuard: InterceptionGuard = {
  name: 'connections, DNS, UDP, worker threads and child processes',
  install: ({ config }) => installNetworkGuards(config),
}

export const dispatcherGuard: InterceptionGuard = {
  name: "undici's global dispatchers",
  install({ config, perform }) {
    const dispatchers = guardGlobalDispatchers(config, perform)
    // A dispatcher set after the boundary (undici loaded by a test file) is wrapped as a tape starts.
    const stopRefreshing = onTapeRun(dispatchers.refresh)
    return () => {
      stopRefreshing()
      dispatchers.dispose()
    }
  },
}
