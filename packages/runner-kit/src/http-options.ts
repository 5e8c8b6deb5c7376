import type { ReplayTiming } from '@agent-tape/http'
import type { TapeConfig } from './option-table.js'
import { type Pattern, toPattern } from './patterns.js'

/** The options the HTTP boundary reads: its slice of the config. */
export type HttpConfig = Pick<TapeConfig, 'modelEndpoints' | 'allowHosts' | 'timing'> &
  Partial<Pick<TapeConfig, 'childProcesses'>>

/** What the HTTP boundary takes from a config: its slice, patterns compiled. */
export function toHttpOptions(config: HttpConfig): {
  modelEndpoints: Pattern[]
  allowHosts: Pattern[]
  timing: ReplayTiming
  childProcesses: 'allow' | 'refuse'
} {
  return {
    modelEndpoints: config.modelEndpoints.map(toPattern),
    allowHosts: config.allowHosts.map(toPattern),
    timing: config.timing,
    // A config resolved by an older runner has none: the default.
    childProcesses: config.childProcesses ?? 'allow',
  }
}
