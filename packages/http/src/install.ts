import { syncBuiltinESMExports } from 'node:module'
import { ConfigError } from '@agent-tape/core'
import { BatchInterceptor } from '@mswjs/interceptors'
import { ClientRequestInterceptor } from '@mswjs/interceptors/ClientRequest'
import { FetchInterceptor } from '@mswjs/interceptors/fetch'
import { installBypassGuard, performingForTape } from './bypass-guard.js'
import { type EndpointPattern, validateEndpointPattern } from './endpoints.js'
import { handleRequest } from './handle-request.js'
import type { ReplayTiming } from './replay-response.js'

export interface HttpBoundaryOptions {
  /** Base URLs (or patterns) of model endpoints beyond the known provider hosts. */
  modelEndpoints?: readonly EndpointPattern[]
  /** How replayed streams are paced (default `instant`). */
  timing?: ReplayTiming
}

export interface HttpBoundary {
  /** Adds model endpoints at run time (a test server whose port is known only once it listens). */
  addModelEndpoints(...patterns: EndpointPattern[]): () => void
  /** Removes the interception; later requests go straight to the network. */
  dispose(): Promise<void>
}

interface Installed {
  boundary: HttpBoundary
  config: { modelEndpoints: EndpointPattern[]; timing: ReplayTiming }
}

const KEY = Symbol.for('agent-tape.http-boundary')
const holder = globalThis as { [KEY]?: Installed }

/**
 * Intercepts `fetch` and `node:http`/`https` in this process and routes each request to the tape
 * of the test that made it (found through the async context set by `runWithTape`). Idempotent:
 * a second call adds its endpoints to the installed boundary. Call it before SDK clients are
 * constructed (a test setup file): clients capture `fetch` when they are created.
 *
 * @example
 * installHttpBoundary({ modelEndpoints: ['http://127.0.0.1:11434/v1'] })
 */
export function installHttpBoundary(options: HttpBoundaryOptions = {}): HttpBoundary {
  const patterns = [...(options.modelEndpoints ?? [])]
  assertPatterns(patterns)
  assertTiming(options.timing)
  const existing = holder[KEY]
  if (existing) {
    existing.config.modelEndpoints.push(...patterns)
    if (options.timing) existing.config.timing = options.timing
    return existing.boundary
  }
  const config: Installed['config'] = { modelEndpoints: patterns, timing: options.timing ?? 'instant' }
  // Captured before the interceptor patches it: the way to reach the network without recursion.
  const pureFetch = globalThis.fetch.bind(globalThis)
  const interceptor = new BatchInterceptor({
    name: 'agent-tape',
    interceptors: [new ClientRequestInterceptor(), new FetchInterceptor()],
  })
  interceptor.on('request', async ({ request, controller }) => {
    const outcome = await handleRequest(request, config, (r) => performingForTape(() => pureFetch(r)))
    if (outcome.type === 'respond') controller.respondWith(outcome.response)
    else if (outcome.type === 'error') controller.errorWith(outcome.error)
  })
  interceptor.apply()
  // `import { request } from 'node:http'` reads a snapshot of the module's exports: refresh it so
  // named imports see the patched functions too.
  syncBuiltinESMExports()
  const removeGuard = installBypassGuard(() => config.modelEndpoints)
  const boundary: HttpBoundary = {
    addModelEndpoints(...added) {
      assertPatterns(added)
      config.modelEndpoints.push(...added)
      return () => {
        for (const pattern of added) {
          const at = config.modelEndpoints.indexOf(pattern)
          if (at !== -1) config.modelEndpoints.splice(at, 1)
        }
      }
    },
    async dispose() {
      removeGuard()
      interceptor.dispose()
      syncBuiltinESMExports()
      if (holder[KEY]?.boundary === boundary) delete holder[KEY]
    },
  }
  holder[KEY] = { boundary, config }
  return boundary
}

function assertPatterns(patterns: readonly EndpointPattern[]): void {
  for (const pattern of patterns) {
    const problem =
      typeof pattern === 'string' || pattern instanceof RegExp || typeof pattern === 'function'
        ? validateEndpointPattern(pattern)
        : `${JSON.stringify(pattern)} is neither a URL string, a RegExp nor a function`
    if (problem) {
      throw new ConfigError({
        what: 'Invalid model endpoint',
        why: problem,
        fix: 'Pass base URLs such as "http://127.0.0.1:8080/v1" or "http://localhost:*", a RegExp, or a (url) => boolean',
      })
    }
  }
}

function assertTiming(timing: unknown): void {
  if (timing === undefined || timing === 'instant' || timing === 'recorded') return
  const speed = (timing as { speed?: unknown }).speed
  if (typeof timing === 'object' && typeof speed === 'number' && speed > 0 && Number.isFinite(speed)) return
  throw new ConfigError({
    what: `Invalid replay timing ${JSON.stringify(timing)}`,
    why: 'timing is "instant", "recorded", or { speed: n } with n > 0',
    fix: 'Use one of them, e.g. { speed: 10 } to replay streams ten times faster than recorded',
  })
}
