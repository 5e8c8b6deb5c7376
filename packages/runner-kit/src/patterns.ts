/** A pattern in a runner's config: a string, or a RegExp. */
export type Pattern = string | RegExp

/** A RegExp as data. */
export interface RegExpData {
  source: string
  flags: string
}

/**
 * A pattern as data: a string, or a RegExp's source and flags. The config holds patterns this
 * way because it travels to the test workers (Vitest's `provide`, Jest's JSON config), where a
 * RegExp does not survive; each consumer turns them back into RegExps where it reads them.
 */
export type PatternData = string | RegExpData

export function toRegExp(pattern: RegExpData): RegExp {
  return new RegExp(pattern.source, pattern.flags)
}

export function toPattern(pattern: PatternData): Pattern {
  return typeof pattern === 'string' ? pattern : toRegExp(pattern)
}
