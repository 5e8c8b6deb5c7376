import type { BoundaryConfig } from './handle-request.js'
import { interceptHttp2 } from './http2/intercept-connect.js'
import { type InterceptedRequestListener, interceptLazily } from './lazy-interception.js'
import type { HostPattern } from './network/allow-hosts.js'
import type { ChildProcessPolicy } from './network/child-processes.js'
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
 * `fetch`, `node:http`/`https` and undici's global dispatchers: a thin layer at install, the
 * interceptors of `@mswjs/interceptors` and the dispatcher guard loaded with the first tape
 * (see lazy-interception.ts and decision 0032), so a test file without tapes never loads them.
 */
export const requestGuard: InterceptionGuard = {
  name: "fetch, node:http and node:https, and undici's global dispatchers",
  install({ config, perform }) {
    const onRequest: InterceptedRequestListener = async ({ request, controller }) => {
      const outcome = await handleRequestWhenTaped(request, config, perform)
      // The caller aborted meanwhile: the interceptor has already failed its request with the
      // caller's own reason, which is what the caller must see (an SDK's timeout error).
      if (request.signal.aborted) return
      if (outcome.type === 'respond') controller.respondWith(outcome.response)
      else if (outcome.type === 'error') controller.errorWith(outcome.error)
    }
    const interception = interceptLazily(config, onRequest, perform)
    return () => interception.dispose()
  },
}

export const http2Guard: InterceptionGuard = {
  name: 'node:http2 sessions',
  install: ({ config }) => interceptHttp2(config),
}

export const networkGuard: InterceptionGuard = {
  name: 'connections, DNS, UDP, worker threads and child processes',
  install: ({ config }) => installNetworkGuards(config),
}
