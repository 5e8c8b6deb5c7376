import { ConfigError } from '@agent-tape/core/runtime'
import { prepareBoundary } from './boundary.js'
import { type EndpointPattern, validateEndpointPattern } from './endpoints.js'
import { assertHostPatterns, type HostPattern } from './network/allow-hosts.js'
import type { ChildProcessPolicy } from './network/child-processes.js'
import type { ReplayTiming } from './replay-timing.js'

export interface HttpBoundaryOptions {
  /** Base URLs (or patterns) of model endpoints beyond the known provider hosts. */
  modelEndpoints?: readonly EndpointPattern[]
  /** How replayed streams are paced (default `instant`). */
  timing?: ReplayTiming
  /**
   * Hosts a tape test may reach for real in every mode (a local database, a search cluster):
   * neither recorded nor blocked. Loopback hosts that are not model endpoints always are.
   */
  allowHosts?: readonly HostPattern[]
  /**
   * What a tape does with the child processes its test starts while it records or replays:
   * `tape` (default) gives a Node child the tape's boundary in a lane of its own (its requests
   * recorded into the tape's cassette, or replayed from it, a miss failing the tape), `allow`
   * starts them untaped and names them in the run summary, `refuse` throws where one is started
   * and fails the tape.
   */
  childProcesses?: ChildProcessPolicy
  /**
   * Tape the HTTPS that a tape's child processes outside Node send through the proxy variables,
   * with a certificate authority made for this process (its certificate given to each child
   * through `SSL_CERT_FILE` and the like, its key in memory). Default `false`: such a tunnel is
   * named while recording and refused in replay.
   */
  interceptHttps?: boolean
}

export interface HttpBoundary {
  /** Adds model endpoints at run time (a test server whose port is known only once it listens). */
  addModelEndpoints(...patterns: EndpointPattern[]): () => void
  /** Adds hosts a tape test may reach for real (see `allowHosts`); returns a function that removes them. */
  addAllowedHosts(...patterns: HostPattern[]): () => void
  /** Removes the interception; later requests go straight to the network. */
  dispose(): Promise<void>
}

/**
 * Intercepts `fetch`, `node:http`/`https`, `node:http2` sessions and undici's global dispatchers
 * in this process and routes each request to the tape of the test that made it (found through the
 * async context set by `runWithTape`). Any other connection a tape test opens (an undici `Client`
 * or `Pool`, a raw socket) is refused while the tape records or replays, unless it goes to
 * loopback or to a host in `allowHosts`. What does it is loaded by the first tape that opens
 * (decision 0035): until then, thin stand-ins call Node's own. Idempotent: a second call adds its
 * endpoints and hosts to the installed boundary.
 *
 * @example
 * installHttpBoundary({ modelEndpoints: ['http://127.0.0.1:11434/v1'] })
 */
export function installHttpBoundary(options: HttpBoundaryOptions = {}): HttpBoundary {
  const patterns = [...(options.modelEndpoints ?? [])]
  const hosts = [...(options.allowHosts ?? [])]
  assertPatterns(patterns)
  assertHostPatterns(hosts)
  assertTiming(options.timing)
  assertChildProcesses(options.childProcesses)
  if (options.interceptHttps !== undefined && typeof options.interceptHttps !== 'boolean')
    throw new ConfigError({
      what: `Invalid interceptHttps option ${JSON.stringify(options.interceptHttps)}`,
      why: 'it is true or false',
      fix: 'Write interceptHttps: true, or leave it out',
    })
  const prepared = prepareBoundary({
    modelEndpoints: patterns,
    allowHosts: hosts,
    ...(options.timing ? { timing: options.timing } : {}),
    ...(options.childProcesses ? { childProcesses: options.childProcesses } : {}),
    ...(options.interceptHttps ? { interceptHttps: true } : {}),
  })
  const { settings } = prepared
  return {
    addModelEndpoints(...added) {
      assertPatterns(added)
      return addTo(settings.modelEndpoints, added)
    },
    addAllowedHosts(...added) {
      assertHostPatterns(added)
      return addTo(settings.allowHosts, added)
    },
    dispose: () => prepared.dispose(),
  }
}

/** Adds `items` to `list` and returns a function that removes them again. */
function addTo<T>(list: T[], items: readonly T[]): () => void {
  list.push(...items)
  return () => {
    for (const item of items) {
      const at = list.indexOf(item)
      if (at !== -1) list.splice(at, 1)
    }
  }
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

function assertChildProcesses(policy: unknown): void {
  if (policy === undefined || policy === 'tape' || policy === 'allow' || policy === 'refuse') return
  throw new ConfigError({
    what: `Invalid childProcesses option ${JSON.stringify(policy)}`,
    why: 'it is "tape" (the default: a Node child gets the tape\'s boundary in a lane of its own), "allow" (child processes start untaped, and the run summary names them) or "refuse" (starting one while a tape records or replays throws, and fails the tape)',
    fix: "Write childProcesses: 'allow' or 'refuse', or leave it out",
  })
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
