import { syncBuiltinESMExports } from 'node:module'
import type { EndpointPattern } from '../endpoints.js'
import type { HostPattern } from './allow-hosts.js'
import { type ChildProcessPolicy, installChildProcessHook } from './child-processes.js'
import { installDnsGuard } from './dns-guard.js'
import { installSocketGuard } from './socket-guard.js'
import { installUdpGuard } from './udp-guard.js'
import { installWorkerGuard } from './worker-guard.js'

export interface NetworkGuardConfig {
  modelEndpoints: readonly EndpointPattern[]
  allowHosts: readonly HostPattern[]
  /** Whose interception the requests went through: agent-tape's own, or the team's MSW server. */
  interception?: 'boundary' | 'msw'
  /** What a tape does with the child processes its test starts (default `allow`: start and name them). */
  childProcesses?: ChildProcessPolicy
}

/**
 * Installs every guard that refuses what leaves the process without a boundary while a tape
 * records or replays: TCP and TLS connections, DNS queries, UDP datagrams, and the same in the
 * worker threads the tape's test starts; and names (or refuses) the child processes it starts. Each patches Node once
 * per process and reads the configs of every installation; returns the removal of this one.
 */
export function installNetworkGuards(config: NetworkGuardConfig): () => void {
  const removals = [
    installSocketGuard(config),
    installDnsGuard(config),
    installUdpGuard(config),
    installWorkerGuard(config),
    installChildProcessHook(config),
  ]
  // `import { lookup } from 'node:dns'` reads a snapshot of the module's exports.
  syncBuiltinESMExports()
  return () => {
    for (const remove of removals) remove()
    syncBuiltinESMExports()
  }
}
