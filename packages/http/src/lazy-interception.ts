import http from 'node:http'
import https from 'node:https'
import { syncBuiltinESMExports } from 'node:module'
import { beforeTapeOpens, onTapeRun, replaysOutsideTapes } from '@agent-tape/core/context'
import type { HttpRequestEventMap } from '@mswjs/interceptors'
import type { BoundaryConfig } from './handle-request.js'
import { mayBeMcp } from './mcp-shape.js'

type FetchInput = Parameters<typeof fetch>[0]

/** What the interceptors call with each request they see. */
export type InterceptedRequestListener = (...args: HttpRequestEventMap['request']) => Promise<void>

export interface LazyInterception {
  /** Loads and applies the interceptors now (what the first tape does); idempotent. */
  load(): Promise<void>
  /** Whether the interceptors are applied. */
  loaded(): boolean
  /** Removes the thin layer and, once loaded, the interceptors. */
  dispose(): void
}

/**
 * A property the thin layer stands in for until the interceptors load: `fetch` and the request
 * functions of `node:http`/`https`. The thin function is what a module that reads the property
 * after the setup keeps (an SDK client that captures `fetch` when it is built, a library that
 * keeps `http.request`), so it must still reach the interception once that loads.
 */
interface Hook {
  owner: object
  key: string
  /** The property as it was before the thin layer (what the interceptors must wrap). */
  original: PropertyDescriptor
  thin: unknown
  /** The interceptor's version of the property, once loaded. */
  patched?: unknown
}

/**
 * Installs the thin interception layer: `fetch`, `http.request`/`get`, `https.request`/`get` and
 * `http.ClientRequest` are replaced by functions that call the original until the first tape
 * opens, and the interceptors' versions after. Loading `@mswjs/interceptors` (its fetch
 * interceptor loads Node's undici to subclass its `Response`) and guarding undici's global
 * dispatchers costs each process tens of milliseconds: a test file without tapes never pays
 * for it, and a tape waits for it before it opens (`beforeTapeOpens`), so no tape ever sees the
 * thin layer alone.
 *
 * Before the first tape, requests pass untouched, as every request outside tapes does while no
 * tape runs, with one exception: in a run whose tapes replay, a `fetch` that may be MCP
 * (an MCP client connecting in `beforeAll`) loads the interception first, so that it is refused
 * with the explanation rather than sent (decision 0021).
 */
export function interceptLazily(
  config: BoundaryConfig,
  onRequest: InterceptedRequestListener,
  perform: (request: Request) => Promise<Response>,
): LazyInterception {
  const hooks: Hook[] = []
  let applied: (() => void) | undefined
  let loading: Promise<void> | undefined
  let disposed = false

  const load = (): Promise<void> => {
    loading ??= applyInterception(hooks, config, onRequest, perform).then((remove) => {
      if (disposed) remove()
      else applied = remove
    })
    return loading
  }

  const fetchHook = hookProperty(hooks, globalThis, 'fetch', (original) => {
    const originalFetch = original as typeof fetch
    return function fetch(this: unknown, input: FetchInput, init?: RequestInit): Promise<Response> {
      const patched = fetchHook.patched as typeof originalFetch | undefined
      if (patched) return patched(input, init)
      if (replaysOutsideTapes() && fetchMayBeMcp(input, init))
        return load().then(() => (fetchHook.patched as typeof originalFetch)(input, init))
      return originalFetch.call(this, input, init)
    }
  })
  for (const module of [http, https]) {
    for (const key of ['request', 'get'] as const) {
      const hook: Hook = hookProperty(hooks, module, key, (original) => {
        const originalFn = original as (...args: unknown[]) => unknown
        return function (this: unknown, ...args: unknown[]) {
          return ((hook.patched as typeof originalFn | undefined) ?? originalFn).apply(this, args)
        }
      })
    }
  }
  const clientRequest: Hook = hookProperty(hooks, http, 'ClientRequest', (original) => {
    const OriginalClass = original as new (...args: unknown[]) => object
    const thin: object = new Proxy(OriginalClass, {
      construct(_target, args, newTarget) {
        const Class = (clientRequest.patched as typeof OriginalClass | undefined) ?? OriginalClass
        return Reflect.construct(Class, args, newTarget === thin ? Class : newTarget)
      },
    })
    return thin
  })
  // `import { request } from 'node:http'` reads a snapshot of the module's exports.
  syncBuiltinESMExports()
  const stopWaiting = beforeTapeOpens(load)

  return {
    load,
    loaded: () => applied !== undefined,
    dispose() {
      disposed = true
      stopWaiting()
      applied?.()
      applied = undefined
      for (const hook of hooks) {
        // Put back what was there, unless someone patched over the thin layer since: theirs stays.
        const current = Object.getOwnPropertyDescriptor(hook.owner, hook.key)
        if (current?.value === hook.thin) Object.defineProperty(hook.owner, hook.key, hook.original)
      }
      syncBuiltinESMExports()
    },
  }
}

/** Replaces `owner[key]` with the thin function `make` builds over its original. */
function hookProperty(hooks: Hook[], owner: object, key: string, make: (original: unknown) => unknown): Hook {
  const original = Object.getOwnPropertyDescriptor(owner, key) as PropertyDescriptor
  const hook: Hook = { owner, key, original, thin: make((owner as Record<string, unknown>)[key]) }
  Object.defineProperty(owner, key, {
    value: hook.thin,
    writable: true,
    enumerable: original.enumerable ?? true,
    configurable: true,
  })
  hooks.push(hook)
  return hook
}

/**
 * Applies the interceptors and the undici dispatcher guard. Each interceptor patches what it
 * finds on the module or the global, and calls that when a request passes: it must find the
 * original, not the thin function (which would call it back). So for the moment of applying,
 * each property holds its original; after, it holds again what it held (the thin function, or
 * what another library patched over it meanwhile), and the thin function calls the interceptor's.
 */
async function applyInterception(
  hooks: readonly Hook[],
  config: BoundaryConfig,
  onRequest: InterceptedRequestListener,
  perform: (request: Request) => Promise<Response>,
): Promise<() => void> {
  const [{ ClientRequestInterceptor }, { FetchInterceptor }, { guardGlobalDispatchers }] = await Promise.all([
    import('@mswjs/interceptors/ClientRequest'),
    import('@mswjs/interceptors/fetch'),
    import('./network/dispatcher-guard.js'),
  ])
  // Each interceptor applied by itself, as a BatchInterceptor would do: that class lives in the
  // package's main entry, which loads more than the two interceptors need.
  const interceptors = [new ClientRequestInterceptor(), new FetchInterceptor()] as const
  const held = hooks.map((hook) => Object.getOwnPropertyDescriptor(hook.owner, hook.key))
  for (const hook of hooks) Object.defineProperty(hook.owner, hook.key, hook.original)
  try {
    for (const interceptor of interceptors) {
      interceptor.on('request', onRequest)
      interceptor.apply()
    }
    for (const hook of hooks) hook.patched = (hook.owner as Record<string, unknown>)[hook.key]
  } finally {
    hooks.forEach((hook, i) => {
      const descriptor = held[i]
      if (descriptor) Object.defineProperty(hook.owner, hook.key, descriptor)
    })
  }
  const dispatchers = guardGlobalDispatchers(config, perform)
  const stopRefreshing = onTapeRun(dispatchers.refresh)
  return () => {
    stopRefreshing()
    dispatchers.dispose()
    // Each interceptor puts back the original it wrapped; what stands over it now stays.
    const current = hooks.map((hook) => Object.getOwnPropertyDescriptor(hook.owner, hook.key))
    for (const interceptor of interceptors) interceptor.dispose()
    hooks.forEach((hook, i) => {
      hook.patched = undefined
      const descriptor = current[i]
      if (descriptor) Object.defineProperty(hook.owner, hook.key, descriptor)
    })
  }
}

/** {@link mayBeMcp} for the arguments of a `fetch` call, without reading (or locking) the body. */
function fetchMayBeMcp(input: FetchInput, init: RequestInit | undefined): boolean {
  const request = input instanceof Request ? input : undefined
  const method = init?.method ?? request?.method ?? 'GET'
  const headers = new Headers(init?.headers ?? request?.headers)
  return mayBeMcp(method, headers)
}
