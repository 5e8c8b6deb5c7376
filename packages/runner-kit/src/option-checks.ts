import { ConfigError } from '@agent-tape/core/internal'
import type { TapeBudget } from './cost/budget.js'
import type { PatternData, RegExpData } from './patterns.js'

/** What an option's check knows of the runner that read it. */
export interface OptionContext {
  /** Where the options are written, for messages: `the agentTape() options`. */
  where: string
  /** How a string in `allowSecrets` is read (see `ConfigSource`). */
  secretStrings: 'literal' | 'regexp'
  /** The error for an option (or a part of one: `redactors[0].pattern`) that is not `expected`. */
  invalid(option: string, expected: string, fix?: string): ConfigError
}

/** The context of one runner's options; `patternFix` is what a bad pattern's message tells to do. */
export function optionContext(
  where: string,
  secretStrings: 'literal' | 'regexp',
  patternFix: string,
): OptionContext {
  return {
    where,
    secretStrings,
    invalid: (option, expected, fix = patternFix) =>
      new ConfigError({ what: `Invalid option ${option} in ${where}`, why: `it must be ${expected}`, fix }),
  }
}

/** An option written as an array. */
export function listOf<T>(option: string, value: unknown, context: OptionContext): readonly T[] {
  if (!Array.isArray(value))
    throw context.invalid(option, `an array, got ${describe(value)}`, `Write ${option}: [ … ]`)
  return value
}

/** A list of patterns as data: strings read as `strings` says, RegExps as their source and flags. */
export function patternList(
  option: string,
  value: unknown,
  context: OptionContext,
  strings: 'literal' | 'regexp' = 'literal',
): PatternData[] {
  return listOf(option, value, context).map((pattern, i): PatternData => {
    if (typeof pattern === 'string')
      return strings === 'literal'
        ? pattern
        : { source: checkedSource(pattern, '', `${option}[${i}]`, context), flags: '' }
    if (pattern instanceof RegExp) return { source: pattern.source, flags: pattern.flags }
    throw context.invalid(`${option}[${i}]`, `a string or a RegExp, got ${describe(pattern)}`)
  })
}

/** A rule's pattern as data: a RegExp, or its source with `flags` (default `g`). */
export function regExpData(
  pattern: unknown,
  flags: string | undefined,
  option: string,
  context: OptionContext,
): RegExpData {
  if (pattern instanceof RegExp) return { source: pattern.source, flags: flags ?? pattern.flags }
  if (typeof pattern === 'string')
    return { source: checkedSource(pattern, flags ?? 'g', option, context), flags: flags ?? 'g' }
  throw context.invalid(option, `a RegExp or a RegExp source string, got ${describe(pattern)}`)
}

function checkedSource(pattern: string, flags: string, option: string, context: OptionContext): string {
  try {
    new RegExp(pattern, flags)
    return pattern
  } catch (error) {
    throw context.invalid(
      option,
      `a valid RegExp source (${(error as Error).message})`,
      'Correct the pattern',
    )
  }
}

/** A budget, checked: each limit a number of 0 or more, tokens a number or `{ input, output }`. */
export function budgetOf(value: unknown, context: OptionContext): TapeBudget {
  const fix =
    'Write budget: { steps: 8, tokens: 20_000, usd: 0.05 } (each limit optional; tokens may be { input, output })'
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    throw context.invalid('budget', `an object, got ${describe(value)}`, fix)
  const limit = (name: string, n: unknown): number => {
    if (typeof n === 'number' && Number.isFinite(n) && n >= 0) return n
    throw context.invalid(`budget.${name}`, `a number of 0 or more, got ${describe(n)}`, fix)
  }
  const budget: TapeBudget = {}
  for (const [name, n] of Object.entries(value)) {
    if (n === undefined) continue
    if (name === 'steps' || name === 'usd') budget[name] = limit(name, n)
    else if (name === 'tokens' && typeof n === 'object' && n !== null && !Array.isArray(n)) {
      const tokens: { input?: number; output?: number } = {}
      for (const [part, m] of Object.entries(n)) {
        if (part !== 'input' && part !== 'output')
          throw context.invalid(`budget.tokens.${part}`, 'one of input, output', fix)
        tokens[part] = limit(`tokens.${part}`, m)
      }
      budget.tokens = tokens
    } else if (name === 'tokens') budget.tokens = limit(name, n)
    else throw context.invalid(`budget.${name}`, 'one of steps, tokens, usd', fix)
  }
  return budget
}

/** A value as a message shows it: a RegExp that arrived as JSON (`{}`) says so. */
export function describe(value: unknown): string {
  if (value instanceof RegExp) return String(value)
  if (typeof value === 'object' && value !== null && !Array.isArray(value) && Object.keys(value).length === 0)
    return '{} (a RegExp sent as JSON arrives as {})'
  return JSON.stringify(value) ?? String(value)
}
