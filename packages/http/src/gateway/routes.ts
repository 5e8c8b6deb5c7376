import type { BaseUrlVariable } from '../codecs/codec.js'
import { MODEL_CODECS } from '../codecs/index.js'

/**
 * The base-URL variables by which model SDKs in every language find their provider, as the
 * codecs declare them: a command's processes get each pointed at the gateway (see
 * `gatewayVariables`), and the gateway sends what arrives on a route on to its upstream while
 * recording. A route with a default upstream stands in whether or not the command's environment
 * sets the variable (the upstream is then the provider's own URL); one without stands in only
 * where the environment sets it, since its upstream is the user's own resource.
 */
export type GatewayRoute = BaseUrlVariable

export const GATEWAY_ROUTES: readonly GatewayRoute[] = MODEL_CODECS.flatMap(
  (codec) => codec.baseUrlVariables ?? [],
)

/** The route of a gateway URL's first path segment after the slot. */
export function routeNamed(name: string): GatewayRoute | undefined {
  return GATEWAY_ROUTES.find((route) => route.route === name)
}

/**
 * The upstream of each route a command's processes get, from its environment: the variable's
 * value where it is set (the user's own server, a local model, a test server), else the route's
 * default; routes without a default are left out where the variable is unset.
 */
export function upstreamsOf(env: Record<string, string | undefined>): Record<string, string> {
  const upstreams: Record<string, string> = {}
  for (const route of GATEWAY_ROUTES) {
    const value = env[route.variable]?.trim()
    const upstream = value ? withScheme(value) : route.upstream
    if (upstream) upstreams[route.route] = upstream.replace(/\/+$/, '')
  }
  return upstreams
}

/** `OLLAMA_HOST=127.0.0.1:11434` names a host without a scheme: plain HTTP, as the clients read it. */
export function withScheme(value: string): string {
  return /^[a-z][a-z0-9+.-]*:\/\//i.test(value) ? value : `http://${value}`
}
