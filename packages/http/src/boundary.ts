import { beforeTapeOpens, replaysOutsideTapes } from '@agent-tape/core/context'
import type { EndpointPattern } from './endpoints.js'
import { mayBeMcp } from './mcp-shape.js'
import type { HostPattern } from './network/allow-hosts.js'
import type { ChildProcessPolicy } from './network/child-processes.js'
import type { ReplayTiming } from './replay-timing.js'
import { removeStandIns, type StandIn, standIn } from './stand-ins.js'

/** What the boundary reads on every request and connection it judges (options added later included). */
export interface BoundarySettings {
  modelEndpoints: EndpointPattern[]
  allowHosts: HostPattern[]
  timing: ReplayTiming
  childProcesses?: ChildProcessPolicy
}

/**
 * The boundary as a runner's setup (or `installHttpBoundary`) leaves it before any tape: the
 * stand-in for `fetch`, the settings, and what the first tape loads.
 */
export interface PreparedBoundary {
  readonly settings: BoundarySettings
  /**
   * The stand-in for `fetch`, which SDK clients keep when they are built (often at import). The
   * rest of what the boundary takes over (`node:http`, `node:https`, `node:http2`, the network
   * guards) is taken over when the first tape opens: modules read those functions from their
   * module when they call them, and an ES module's named import follows the module's exports.
   */
  readonly fetchStandIn: StandIn
  /** `fetch` as it was before the stand-in: how the boundary reaches the network unintercepted. */
  readonly networkFetch: typeof fetch
  /** Loads and applies what serves tapes behind the stand-ins (what the first tape awaits); idempotent. */
  load(): Promise<void>
  /** Whether {@link load} has finished. */
  loaded(): boolean
  /** Removes the stand-ins and, once loaded, everything applied behind them. */
  dispose(): Promise<void>
}

/** Where the boundary is kept (one per process, ESM and CJS alike). */
export const OWN_INTERCEPTION_KEY = Symbol.for('agent-tape.http-boundary')
const holder = globalThis as { [OWN_INTERCEPTION_KEY]?: PreparedBoundary }

/** Whether agent-tape's own interception (`installHttpBoundary`, the runners' default) is installed. */
export function ownInterceptionInstalled(): boolean {
  return holder[OWN_INTERCEPTION_KEY] !== undefined
}

/** The boundary installed in this process, if any. */
export function installedBoundary(): PreparedBoundary | undefined {
  return holder[OWN_INTERCEPTION_KEY]
}

/**
 * Puts the stand-in for `fetch` in place and has the first tape of the process load what serves
 * tapes (decisions 0032 and 0035): the interceptors of `fetch` and `node:http(s)`, the HTTP/2
 * sessions, undici's dispatchers, the network guards, and what decides a request. A test file
 * that opens no tape loads none of it, nor Node's `http`, `https` and `http2` modules. Settings
 * are taken as given: a runner checks them where it resolves its options, `installHttpBoundary`
 * before it calls this. A second call adds its endpoints and hosts to the boundary already
 * prepared.
 */
export function prepareBoundary(options: Partial<BoundarySettings>): PreparedBoundary {
  const existing = holder[OWN_INTERCEPTION_KEY]
  if (existing) {
    existing.settings.modelEndpoints.push(...(options.modelEndpoints ?? []))
    existing.settings.allowHosts.push(...(options.allowHosts ?? []))
    if (options.timing) existing.settings.timing = options.timing
    if (options.childProcesses) existing.settings.childProcesses = options.childProcesses
    return existing
  }
  const settings: BoundarySettings = {
    modelEndpoints: [...(options.modelEndpoints ?? [])],
    allowHosts: [...(options.allowHosts ?? [])],
    timing: options.timing ?? 'instant',
    ...(options.childProcesses ? { childProcesses: options.childProcesses } : {}),
  }
  let loading: Promise<void> | undefined
  let removeApplied: (() => void) | undefined
  let disposed = false
  const networkFetch = globalThis.fetch.bind(globalThis)
  const load = (): Promise<void> => {
    loading ??= import('./apply-boundary.js')
      .then(({ applyBoundary }) => applyBoundary(prepared))
      .then((remove) => {
        if (disposed) remove()
        else removeApplied = remove
      })
    return loading
  }
  const prepared: PreparedBoundary = {
    settings,
    fetchStandIn: standInFetch(load),
    networkFetch,
    load,
    loaded: () => removeApplied !== undefined,
    async dispose() {
      disposed = true
      stopWaiting()
      removeApplied?.()
      removeApplied = undefined
      removeStandIns([prepared.fetchStandIn])
      if (holder[OWN_INTERCEPTION_KEY] === prepared) delete holder[OWN_INTERCEPTION_KEY]
    },
  }
  const stopWaiting = beforeTapeOpens(load)
  holder[OWN_INTERCEPTION_KEY] = prepared
  return prepared
}

type FetchInput = Parameters<typeof fetch>[0]

/**
 * `fetch` until the first tape: Node's own, as every request outside tapes is while no tape runs,
 * with one exception: in a run whose tapes replay, a `fetch` that may be MCP (a client connecting
 * in `beforeAll`) loads the boundary first, so that it is refused with the explanation rather
 * than sent (decision 0021).
 */
function standInFetch(load: () => Promise<void>): StandIn {
  return standIn(globalThis, 'fetch', (original, self) => {
    const nodeFetch = original as typeof fetch
    return function fetch(this: unknown, input: FetchInput, init?: RequestInit): Promise<Response> {
      const patched = self.patched as typeof nodeFetch | undefined
      if (patched) return patched(input, init)
      if (replaysOutsideTapes() && fetchMayBeMcp(input, init))
        return load().then(() => (self.patched as typeof nodeFetch)(input, init))
      return nodeFetch.call(this, input, init)
    }
  })
}

/** {@link mayBeMcp} for the arguments of a `fetch` call, without reading (or locking) the body. */
function fetchMayBeMcp(input: FetchInput, init: RequestInit | undefined): boolean {
  const request = input instanceof Request ? input : undefined
  const method = init?.method ?? request?.method ?? 'GET'
  const headers = new Headers(init?.headers ?? request?.headers)
  return mayBeMcp(method, headers)
}
