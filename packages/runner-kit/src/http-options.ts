import type { ReplayTiming } from '@agent-tape/http'
import type { Pattern, PatternData, RegExpData, TapeConfig } from './tape-config.js'

/** What the HTTP boundary takes from a config. */
export function toHttpOptions(config: TapeConfig): {
  modelEndpoints: Pattern[]
  allowHosts: Pattern[]
  timing: ReplayTiming
} {
  return {
    modelEndpoints: config.modelEndpoints.map(toPattern),
    allowHosts: config.allowHosts.map(toPattern),
    timing: config.timing,
  }
}

export function toRegExp(pattern: RegExpData): RegExp {
  return new RegExp(pattern.source, pattern.flags)
}

export function toPattern(pattern: PatternData): Pattern {
  return typeof pattern === 'string' ? pattern : toRegExp(pattern)
}
