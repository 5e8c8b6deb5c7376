import { AsyncLocalStorage } from 'node:async_hooks'
import { AgentTapeError, currentTape } from '@agent-tape/core'
import type { EndpointPattern } from './endpoints.js'
import { claimsUrl } from './handle-request.js'

const DISPATCHER = Symbol.for('undici.globalDispatcher.1')
const ours = new AsyncLocalStorage<true>()

interface Dispatcher {
  dispatch(
    options: { origin?: string | URL; path?: string; method?: string },
    handler: { onError(error: Error): void },
  ): boolean
}

/** Runs `fn` (the boundary's own network call while recording) past the guard. */
export function performingForTape<T>(fn: () => T): T {
  return ours.run(true, fn)
}

/**
 * A guard on Node's global `fetch` dispatcher. `fetch` functions captured before the boundary
 * was installed (an SDK client created at import time, before the test setup ran) skip the
 * interception; their requests still reach this dispatcher. While a tape is recording or
 * replaying, such a request would either leave the process unrecorded or spend tokens during a
 * replay, so it is refused here with an explanation, and reported on the tape.
 */
export function installBypassGuard(endpoints: () => readonly EndpointPattern[]): () => void {
  const holder = globalThis as unknown as Record<symbol, Dispatcher | undefined>
  // Touching a fetch global loads Node's bundled undici, which creates the global dispatcher.
  void globalThis.Response
  const inner = holder[DISPATCHER]
  if (!inner || typeof inner.dispatch !== 'function') return () => {}
  const guard: Dispatcher = Object.create(inner)
  guard.dispatch = (options, handler) => {
    const problem = ours.getStore() ? undefined : escaped(options, endpoints())
    if (!problem) return inner.dispatch(options, handler)
    handler.onError(problem)
    return true
  }
  holder[DISPATCHER] = guard
  return () => {
    if (holder[DISPATCHER] === guard) holder[DISPATCHER] = inner
  }
}

function escaped(
  options: { origin?: string | URL; path?: string; method?: string },
  endpoints: readonly EndpointPattern[],
) {
  if (options.origin === undefined) return undefined
  const url = new URL(options.path ?? '/', options.origin)
  if (!claimsUrl(url, endpoints)) return undefined
  const error = new AgentTapeError('ERR_TAPE_UNATTRIBUTED', {
    what: `${options.method ?? 'GET'} ${url.href} bypassed agent-tape`,
    why: 'it was sent with a fetch function captured before the tape boundary was installed (an SDK client created at import time, before the test setup ran), so it could be neither recorded nor replayed, and it was stopped before reaching the network',
    fix: 'Create the client inside the test or lazily, make sure the agent-tape setup runs first, or pass fetch: (...args) => globalThis.fetch(...args) to the client',
  })
  currentTape()?.reportDivergence(error)
  return error
}
