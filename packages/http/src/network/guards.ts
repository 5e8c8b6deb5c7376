import type { EndpointPattern } from '../endpoints.js'
import type { HostPattern } from './allow-hosts.js'
import { type ChildProcessPolicy, childProcessHook } from './child-processes.js'
import { dnsGuard } from './dns-guard.js'
import { installPatch, installPatches, type NodePatch } from './node-patch.js'
import { socketGuard } from './socket-guard.js'
import { udpGuard } from './udp-guard.js'
import { workerGuard } from './worker-guard.js'

export interface NetworkGuardConfig {
  modelEndpoints: readonly EndpointPattern[]
  allowHosts: readonly HostPattern[]
  /** Whose interception the requests went through: agent-tape's own, or the team's MSW server. */
  interception?: 'boundary' | 'msw'
  /** What a tape does with the child processes its test starts (default `tape`: a lane each). */
  childProcesses?: ChildProcessPolicy
  /** Tape the HTTPS of a tape's children outside Node with a certificate authority of the process's. */
  interceptHttps?: boolean
}

/**
 * Installs every guard that refuses what leaves the process without a boundary while a tape
 * records or replays: TCP and TLS connections, DNS queries, UDP datagrams, and the same in the
 * worker threads the tape's test starts; and names (or refuses) the child processes it starts. Each patches Node once
 * per process and reads the configs of every installation; returns the removal of this one.
 */
export function installNetworkGuards(config: NetworkGuardConfig): () => void {
  return installPatches(NETWORK_PATCHES.map((patch) => () => installPatch(patch, config)))
}

/** The patches of Node that keep a replay off the network, each installed once per process. */
const NETWORK_PATCHES: readonly NodePatch<NetworkGuardConfig, unknown>[] = [
  socketGuard,
  dnsGuard,
  udpGuard,
  workerGuard,
  childProcessHook as NodePatch<NetworkGuardConfig, unknown>,
]
