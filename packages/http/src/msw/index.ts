import { bypass, type HttpHandler, http } from 'msw'
import type { EndpointPattern } from '../endpoints.js'
import { type BoundaryConfig, claimsRequest, handleRequest } from '../handle-request.js'
import type { HostPattern } from '../network/allow-hosts.js'
import { performingForTape } from '../network/performing.js'
import { installSocketGuard } from '../network/socket-guard.js'
import type { ReplayTiming } from '../replay-response.js'

export interface TapeHandlerOptions {
  modelEndpoints?: readonly EndpointPattern[]
  timing?: ReplayTiming
  /** Hosts a tape test may reach for real in every mode (see `installHttpBoundary`). */
  allowHosts?: readonly HostPattern[]
}

/**
 * Request handlers for teams that already run an MSW server for their own API mocks: add them
 * to that server instead of calling `installHttpBoundary` (one interceptor, not two). Requests
 * the tape does not own (loopback, no tape running, live mode) do not match, so they go to your
 * handlers and to your `onUnhandledRequest` policy. Requests it records are performed with
 * MSW's `bypass`. Needs msw 2.15 or a later 2.x.
 *
 * @example
 * const server = setupServer(...tapeHandlers(), ...myApiHandlers)
 * server.listen({ onUnhandledRequest: 'error' })
 */
export function tapeHandlers(options: TapeHandlerOptions = {}): HttpHandler[] {
  const config: BoundaryConfig = {
    modelEndpoints: [...(options.modelEndpoints ?? [])],
    allowHosts: [...(options.allowHosts ?? [])],
    timing: options.timing ?? 'instant',
  }
  // MSW sees only the clients it intercepts; the guard refuses, while a tape runs, every other
  // connection that would leave the process.
  installSocketGuard({ modelEndpoints: config.modelEndpoints, allowHosts: config.allowHosts ?? [] })
  return [
    http.all(
      ({ request }) => claimsRequest(request, config),
      async ({ request }) => {
        const outcome = await handleRequest(request, config, (r) => performingForTape(() => fetch(bypass(r))))
        if (outcome.type === 'respond') return outcome.response
        if (outcome.type === 'error') return Response.error()
        return undefined
      },
    ),
  ]
}
