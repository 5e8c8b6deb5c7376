import { assertKnownOptions, claimingTapeCount, currentTape } from '@agent-tape/core/internal'
import { bypass, type HttpHandler, http } from 'msw'
import { ownInterceptionInstalled } from '../boundary.js'
import { findCodec } from '../codecs/index.js'
import { classifyUrl, type EndpointPattern } from '../endpoints.js'
import { errorAnswer } from '../error-answer.js'
import { type BoundaryConfig, handleRequest } from '../handle-request.js'
import { runnerMswConfig } from '../msw-interception.js'
import { assertHostPatterns, type HostPattern, matchesHost } from '../network/allow-hosts.js'
import { installNetworkGuards } from '../network/guards.js'
import { performingForTape } from '../network/performing.js'
import { useCodecLabels } from '../read-exchange.js'
import type { ReplayTiming } from '../replay-timing.js'
import { twoInterceptionsError } from '../two-interceptions.js'

export interface TapeHandlerOptions {
  /** Base URLs of model endpoints beyond the known provider hosts (added to the runner's). */
  modelEndpoints?: readonly EndpointPattern[]
  /**
   * Other hosts whose requests the tape records and replays as `http` decisions (an API your
   * agent calls that you do not mock). Requests to any other host are left to your handlers.
   */
  hosts?: readonly HostPattern[]
  /** How replayed streams are paced (default: the runner's, else `instant`). */
  timing?: ReplayTiming
  /** Hosts a tape test may reach for real in every mode (added to the runner's). */
  allowHosts?: readonly HostPattern[]
}

const HANDLER_OPTION_NAMES = Object.keys({
  modelEndpoints: true,
  hosts: true,
  timing: true,
  allowHosts: true,
} satisfies Record<keyof TapeHandlerOptions, true>)

/**
 * Request handlers for teams that already run an MSW server: add them to that server, in any
 * position, instead of a second interceptor. While a tape records or replays, they take model
 * requests (the known provider hosts and `modelEndpoints`) and the `hosts` you list; every other
 * request goes to your handlers and to your `onUnhandledRequest` policy, whatever the order.
 * Requests it records are performed with MSW's `bypass`. With a runner set to
 * `interception: 'msw'`, the runner's options apply too. Needs msw 2.15 or later, or msw 3.
 *
 * @example
 * const server = setupServer(...myApiHandlers, ...tapeHandlers())
 * server.listen({ onUnhandledRequest: 'error' })
 */
export function tapeHandlers(options: TapeHandlerOptions = {}): HttpHandler[] {
  assertKnownOptions(options, HANDLER_OPTION_NAMES, 'the tapeHandlers() options')
  // The runner's own interception is already installed (its setup ran first): two interceptions.
  if (ownInterceptionInstalled()) throw twoInterceptionsError()
  useCodecLabels()
  const hosts = [...(options.hosts ?? [])]
  assertHostPatterns(hosts)
  assertHostPatterns(options.allowHosts ?? [])
  // Read on every request: the runner's setup may run after the file that builds the server.
  const config = (): BoundaryConfig => {
    const runner = runnerMswConfig()
    return {
      modelEndpoints: [...(runner?.modelEndpoints ?? []), ...(options.modelEndpoints ?? [])],
      allowHosts: [...(runner?.allowHosts ?? []), ...(options.allowHosts ?? [])],
      timing: options.timing ?? runner?.timing ?? 'instant',
      tapeHosts: hosts,
      streamWhileRecording: false,
    }
  }
  if (!runnerMswConfig()) {
    // Without a runner, nothing else guards the connections MSW lets through.
    installNetworkGuards({
      modelEndpoints: options.modelEndpoints ?? [],
      allowHosts: options.allowHosts ?? [],
      interception: 'msw',
    })
  }
  return [
    http.all(
      ({ request }) => claims(new URL(request.url), config()),
      async ({ request }) => {
        // The runner's own interception came after this server (its setup ran later).
        if (ownInterceptionInstalled()) return refuseSecondInterception(request)
        const perform = (r: Request) => performingForTape(() => fetch(bypass(r)))
        const outcome = await handleRequest(request, config(), perform)
        if (outcome.type === 'respond') return outcome.response
        if (outcome.type === 'error') return Response.error()
        return undefined
      },
    ),
  ]
}

/** Model requests and the listed hosts, while a tape records or replays (or cannot be told). */
function claims(url: URL, config: BoundaryConfig): boolean {
  const requestClass = classifyUrl(url, config.modelEndpoints, config.allowHosts)
  const port = Number(url.port || (url.protocol === 'https:' ? 443 : 80))
  const listed = requestClass !== 'allowed' && matchesHost(url.hostname, port, config.tapeHosts ?? [])
  if (requestClass !== 'model' && !listed) return false
  const tape = currentTape()
  return tape ? tape.action !== 'passthrough' : claimingTapeCount() > 0
}

/**
 * A request that both interceptions take: the tape fails with what to set, writes nothing, and
 * the request is answered with an error (in the provider's shape for a model request, so that the
 * SDK stops at once) instead of being sent.
 */
function refuseSecondInterception(request: Request): Response {
  const error = twoInterceptionsError(request)
  currentTape()?.refuseRecording(error)
  const codec = findCodec(request.method, new URL(request.url).pathname)
  return codec ? errorAnswer(codec, error.message, 'two-interceptions') : Response.error()
}
