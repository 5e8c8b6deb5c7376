import type { EndpointPattern } from './endpoints.js'
import type { HostPattern } from './network/allow-hosts.js'
import type { ChildProcessPolicy } from './network/child-processes.js'
import { installNetworkGuards } from './network/guards.js'
import type { ReplayTiming } from './replay-timing.js'
import { prepareBeforeTapes } from './request-handling.js'

/** What a runner set up for `tapeHandlers()` when the team's MSW server is the interception. */
export interface MswInterceptionConfig {
  modelEndpoints: EndpointPattern[]
  allowHosts: HostPattern[]
  timing?: ReplayTiming
  childProcesses?: ChildProcessPolicy
}

const KEY = Symbol.for('agent-tape.msw-interception')
const holder = globalThis as { [KEY]?: MswInterceptionConfig }

/**
 * Sets the runner up for `interception: 'msw'`: no interceptor of agent-tape's own is installed
 * (the team's MSW server, with `tapeHandlers()` among its handlers, is the interception), the
 * runner's options reach `tapeHandlers()` whenever it is called, and the guard that refuses
 * connections no boundary records while a tape runs is installed. Returns its removal.
 */
export function useMswInterception(config: MswInterceptionConfig): () => void {
  prepareBeforeTapes()
  holder[KEY] ??= { modelEndpoints: [], allowHosts: [] }
  const current = holder[KEY]
  current.modelEndpoints.push(...config.modelEndpoints)
  current.allowHosts.push(...config.allowHosts)
  if (config.timing) current.timing = config.timing
  if (config.childProcesses) current.childProcesses = config.childProcesses
  const removeGuard = installNetworkGuards({ ...current, interception: 'msw' })
  return () => {
    removeGuard()
    if (holder[KEY] === current) delete holder[KEY]
  }
}

/** The options a runner set for `tapeHandlers()`, if it runs with `interception: 'msw'`. */
export function runnerMswConfig(): MswInterceptionConfig | undefined {
  return holder[KEY]
}
