import { syncBuiltinESMExports } from 'node:module'
import { beforeTapeOpens } from '@agent-tape/core/context'
import { standInNetworkGuards } from './boundary.js'
import { standInOnLoad } from './builtin-loads.js'
import type { EndpointPattern } from './endpoints.js'
import type { HostPattern } from './network/allow-hosts.js'
import type { ChildProcessPolicy } from './network/child-processes.js'
import type { ReplayTiming } from './replay-timing.js'
import { loadRequestHandling } from './request-handling.js'
import { patchBehind, removeStandIns, unpatchBehind } from './stand-ins.js'

/** What a runner set up for `tapeHandlers()` when the team's MSW server is the interception. */
export interface MswInterceptionConfig {
  modelEndpoints: EndpointPattern[]
  allowHosts: HostPattern[]
  timing?: ReplayTiming
  childProcesses?: ChildProcessPolicy
  interceptHttps?: boolean
}

const KEY = Symbol.for('agent-tape.msw-interception')
const holder = globalThis as { [KEY]?: MswInterceptionConfig }

/**
 * Sets the runner up for `interception: 'msw'`: no interceptor of agent-tape's own is installed
 * (the team's MSW server, with `tapeHandlers()` among its handlers, is the interception), the
 * runner's options reach `tapeHandlers()` whenever it is called, and the first tape of the process
 * loads the guards that refuse connections no boundary records while a tape runs, with what
 * decides a request. Returns its removal.
 */
export function useMswInterception(config: MswInterceptionConfig): () => void {
  holder[KEY] ??= { modelEndpoints: [], allowHosts: [] }
  const current = holder[KEY]
  current.modelEndpoints.push(...config.modelEndpoints)
  current.allowHosts.push(...config.allowHosts)
  if (config.timing) current.timing = config.timing
  if (config.childProcesses) current.childProcesses = config.childProcesses
  if (config.interceptHttps !== undefined) current.interceptHttps = config.interceptHttps
  let removeGuards: (() => void) | undefined
  let disposed = false
  let loading: Promise<void> | undefined
  // What a module may keep of what the guards take over, as with agent-tape's own interception.
  const network = standInNetworkGuards()
  const builtins = standInOnLoad(network.onLoad)
  syncBuiltinESMExports()
  const stopWaiting = beforeTapeOpens(() => {
    if (!loading) builtins.settle()
    loading ??= Promise.all([import('./network/guards.js'), loadRequestHandling()]).then(([guards]) => {
      const remove = patchBehind(network.standIns, () =>
        guards.installNetworkGuards({ ...current, interception: 'msw' }),
      )
      syncBuiltinESMExports()
      const removal = () => unpatchBehind(network.standIns, remove)
      if (disposed) removal()
      else removeGuards = removal
    })
    return loading
  })
  return () => {
    disposed = true
    stopWaiting()
    removeGuards?.()
    builtins.stop()
    removeStandIns(network.standIns)
    syncBuiltinESMExports()
    if (holder[KEY] === current) delete holder[KEY]
  }
}

/** The options a runner set for `tapeHandlers()`, if it runs with `interception: 'msw'`. */
export function runnerMswConfig(): MswInterceptionConfig | undefined {
  return holder[KEY]
}
