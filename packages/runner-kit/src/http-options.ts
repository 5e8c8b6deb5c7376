import type { ReplayTiming } from '@agent-tape/http'
import type { Pattern, PatternData, RegExpData, TapeConfig } from './tape-config.js'

/** What the HTTP boundary takes from a config. */
export function toHttpOptions(config: TapeConfig): {
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

export function toRegExp(pattern: RegExpData): RegExp {
  return new RegExp(pattern.source, pattern.flags)
}

export function toPattern(pattern: PatternData): Pattern {
  return typeof pattern === 'string' ? pattern : toRegExp(pattern)
}
