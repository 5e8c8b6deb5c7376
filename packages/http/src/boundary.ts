import childProcess from 'node:child_process'
import dgram from 'node:dgram'
import type { ClientHttp2Session } from 'node:http2'
import { syncBuiltinESMExports } from 'node:module'
import net from 'node:net'
import { beforeTapeOpens, replaysOutsideTapes } from '@agent-tape/core/context'
import { standInOnLoad, type WatchedBuiltins } from './builtin-loads.js'
import type { EndpointPattern } from './endpoints.js'
import { fetchMayBeMcp } from './mcp-shape.js'
import type { HostPattern } from './network/allow-hosts.js'
import type { ChildProcessPolicy } from './network/child-processes.js'
import type { ReplayTiming } from './replay-timing.js'
import { removeStandIns, type StandIn, standIn, standInClass, standInFunction } from './stand-ins.js'

/** What the boundary reads on every request and connection it judges (options added later included). */
export interface BoundarySettings {
  modelEndpoints: EndpointPattern[]
  allowHosts: HostPattern[]
  /** Hosts taped as other HTTP even on loopback (a recorded command's `--tape-host`). */
  tapeHosts?: HostPattern[]
  timing: ReplayTiming
  childProcesses?: ChildProcessPolicy
  /** Tape the HTTPS of a tape's children outside Node with a certificate authority of the process's (see `tapeChild`). */
  interceptHttps?: boolean
  /** The model every recorded model request is sent to instead of its own (`agent-tape replay --from --model`). */
  liveModel?: string
}

/**
 * The boundary as a runner's setup (or `installHttpBoundary`) leaves it before any tape: the
 * stand-ins in place, the settings, and what the first tape loads behind them.
 */
export interface PreparedBoundary {
  readonly settings: BoundarySettings
  /**
   * What modules keep when they load (an SDK client keeps `fetch` when it is built, a library
   * may keep `http.get`, a worker pool `Worker`): `fetch`; the request functions of
   * `node:http`/`https` and `http.ClientRequest`, which call {@link beforeRequest} first;
   * `http2.connect`; what the network guards take over (see {@link standInNetworkGuards}). Those of
   * `node:http`, `https`, `http2` and `worker_threads` are added when the builtin loads (see
   * `standInOnLoad`): every one of them is in place once {@link load} has begun.
   */
  readonly standIns: { fetch: StandIn; requests: StandIn[]; http2: StandIn[]; network: StandIn[] }
  /** `fetch` as it was before the stand-in: how the boundary reaches the network unintercepted. */
  readonly networkFetch: typeof fetch
  /**
   * Sessions `http2.connect` opened before the first tape, with the authority each was opened to:
   * the HTTP/2 guard watches them once it loads, as it watches those opened after.
   */
  readonly earlySessions: Map<ClientHttp2Session, unknown>
  /** Set by the guard that takes `node:http(s)` over on first need: what their stand-ins call first. */
  beforeRequest?: () => void
  /**
   * Set by the WebSocket guard: what the stand-ins of `http.request` and `https.request`
   * (`secure`) ask next, given Node's own function. A WebSocket upgrade a tape takes comes back
   * as the client's request; anything else, `undefined`, goes on to what stands behind them.
   */
  takeUpgrade?: (request: (...args: unknown[]) => never, args: unknown[], secure: boolean) => unknown
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
 * Puts the stand-ins in place and has the first tape of the process load what serves tapes
 * behind them (decisions 0032 and 0035): the boundary's own `fetch`, the interceptor of
 * `node:http(s)`, the HTTP/2 sessions, undici's dispatchers, the network guards, and what decides
 * a request. A test file that opens no tape loads none of it. Settings
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
    if (options.interceptHttps !== undefined) existing.settings.interceptHttps = options.interceptHttps
    return existing
  }
  const settings: BoundarySettings = {
    modelEndpoints: [...(options.modelEndpoints ?? [])],
    allowHosts: [...(options.allowHosts ?? [])],
    timing: options.timing ?? 'instant',
    ...(options.childProcesses ? { childProcesses: options.childProcesses } : {}),
    ...(options.interceptHttps ? { interceptHttps: true } : {}),
  }
  let loading: Promise<void> | undefined
  let removeApplied: (() => void) | undefined
  let disposed = false
  const networkFetch = globalThis.fetch.bind(globalThis)
  const earlySessions = new Map<ClientHttp2Session, unknown>()
  const beforeUse = () => prepared.beforeRequest?.()
  const upgradeOf =
    (secure: boolean) =>
    (request: (...args: unknown[]) => never, args: unknown[]): unknown =>
      prepared.takeUpgrade?.(request, args, secure)
  const requests: StandIn[] = []
  const http2Connect: StandIn[] = []
  const network = standInNetworkGuards()
  const builtins = standInOnLoad({
    http: (http) =>
      requests.push(
        standInFunction(http, 'request', beforeUse, upgradeOf(false)),
        standInFunction(http, 'get', beforeUse),
        standInClass(http, 'ClientRequest', beforeUse),
      ),
    https: (https) =>
      requests.push(
        standInFunction(https, 'request', beforeUse, upgradeOf(true)),
        standInFunction(https, 'get', beforeUse),
      ),
    http2: (http2) => http2Connect.push(standInConnect(http2, earlySessions)),
    ...network.onLoad,
  })
  const load = (): Promise<void> => {
    // What serves tapes stands behind every stand-in: those of builtins not loaded yet go in first.
    if (!loading) builtins.settle()
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
    standIns: { fetch: standInFetch(load), requests, http2: http2Connect, network: network.standIns },
    networkFetch,
    earlySessions,
    load,
    loaded: () => removeApplied !== undefined,
    async dispose() {
      disposed = true
      stopWaiting()
      builtins.stop()
      removeApplied?.()
      removeApplied = undefined
      const { fetch, requests, http2, network } = prepared.standIns
      removeStandIns([fetch, ...requests, ...http2, ...network])
      syncBuiltinESMExports()
      if (holder[OWN_INTERCEPTION_KEY] === prepared) delete holder[OWN_INTERCEPTION_KEY]
    },
  }
  // `import { request } from 'node:http'` reads a snapshot of the module's exports.
  syncBuiltinESMExports()
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

/**
 * `http2.connect` until the first tape: Node's own, keeping each session it opens, so that the
 * HTTP/2 guard can watch a session opened at import or in `beforeAll` and reused by a tape (its
 * requests then belong to the tape, as those of every session opened later do).
 */
function standInConnect(
  http2: WatchedBuiltins['http2'],
  earlySessions: Map<ClientHttp2Session, unknown>,
): StandIn {
  return standIn(http2, 'connect', (original, self) => {
    const connect = original as (...args: unknown[]) => ClientHttp2Session
    return function connectStandIn(this: unknown, ...args: unknown[]) {
      const patched = self.patched as typeof connect | undefined
      if (patched) return patched.apply(this, args)
      const session = connect.apply(this, args)
      earlySessions.set(session, args[0])
      session.once('close', () => earlySessions.delete(session))
      return session
    }
  })
}

/**
 * What the network guards take over, held from the setup on, so that what the first tape applies
 * behind them reaches what a module kept before it and stays behind what another library patched
 * after the setup: `Worker` and the synchronous functions of `node:child_process` (a worker pool
 * keeps `Worker`, a library `execSync`); and the methods each connection, datagram and process
 * start passes, which an interceptor of the team's may patch in turn (msw 3 patches
 * `net.Socket#connect`: its handlers must see a request before the guard judges the connection it
 * would open). `node:dns` is not held: loading it costs a test file more than the rest together,
 * and its guard applies over what is there at the first tape.
 */
export function standInNetworkGuards(): {
  standIns: StandIn[]
  /** `Worker`'s, added when `node:worker_threads` loads: for {@link standInOnLoad}'s plan. */
  onLoad: { worker_threads: (module: WatchedBuiltins['worker_threads']) => void }
} {
  const standIns = [
    ...(['spawnSync', 'execSync', 'execFileSync'] as const).map((name) =>
      standInFunction(childProcess, name),
    ),
    standInFunction(childProcess.ChildProcess.prototype, 'spawn'),
    standInFunction(net.Socket.prototype, 'connect'),
    standInFunction(dgram.Socket.prototype, 'send'),
    standInFunction(dgram.Socket.prototype, 'connect'),
  ]
  return {
    standIns,
    onLoad: { worker_threads: (module) => void standIns.push(standInClass(module, 'Worker')) },
  }
}
