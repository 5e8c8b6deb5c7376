import type { ReplayTiming } from '@agent-tape/http'
import { prepareBoundary, useMswInterception } from '@agent-tape/http/install'
import type { TapeConfig } from './option-table.js'
import { type Pattern, toPattern } from './patterns.js'

/** The options the HTTP boundary reads: its slice of the config. */
export type HttpConfig = Pick<TapeConfig, 'modelEndpoints' | 'allowHosts' | 'timing'> &
  Partial<Pick<TapeConfig, 'childProcesses' | 'interceptHttps'>>

/** What the HTTP boundary takes from a config: its slice, patterns compiled. */
export function toHttpOptions(config: HttpConfig): {
  modelEndpoints: Pattern[]
  allowHosts: Pattern[]
  timing: ReplayTiming
  childProcesses: 'tape' | 'allow' | 'refuse'
  interceptHttps?: true
} {
  return {
    modelEndpoints: config.modelEndpoints.map(toPattern),
    allowHosts: config.allowHosts.map(toPattern),
    timing: config.timing,
    // A config resolved by an older runner has none: the default.
    childProcesses: config.childProcesses ?? 'tape',
    ...(config.interceptHttps ? { interceptHttps: true as const } : {}),
  }
}

/**
 * Puts the HTTP boundary a config asks for in place, before a test file loads: agent-tape's own
 * interception, or (with `interception: 'msw'`) the team's MSW server, with `tapeHandlers()` in
 * it, intercepting. Returns its removal.
 */
export function installRunnerBoundary(config: HttpConfig & Pick<TapeConfig, 'interception'>): () => void {
  const http = toHttpOptions(config)
  return config.interception === 'msw' ? useMswInterception(http) : prepareBoundary(http).dispose
}
