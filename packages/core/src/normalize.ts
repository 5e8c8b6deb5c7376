import { ConfigError } from './errors.js'
import { mapStrings } from './json-walk.js'

/**
 * A rule that rewrites a canonical input before it is keyed, identically at record and at
 * replay time: for values that legitimately change between runs, such as a date injected
 * into a prompt. Every rule that fires is counted on the tape's state and reported.
 *
 * @example
 * { name: 'today', pattern: /\d{4}-\d{2}-\d{2}/g, replacement: '<date>' }
 * { name: 'drop-trace-id', kinds: ['http'], apply: (input) => ({ ...input, traceId: undefined }) }
 */
export type Normalizer =
  | { name: string; kinds?: readonly string[]; pattern: RegExp; replacement: string }
  | { name: string; kinds?: readonly string[]; apply: (input: unknown, kind: string) => unknown }

export interface NormalizeResult {
  input: unknown
  /** Names of the rules that changed something. */
  fired: string[]
}

export function applyNormalizers(
  kind: string,
  input: unknown,
  rules: readonly Normalizer[],
): NormalizeResult {
  const fired: string[] = []
  let current = input
  for (const rule of rules) {
    if (rule.kinds && !rule.kinds.includes(kind)) continue
    let changed = false
    if ('apply' in rule) {
      const before = JSON.stringify(current)
      current = rule.apply(current, kind)
      changed = JSON.stringify(current) !== before
    } else {
      current = mapStrings(current, (text) => {
        rule.pattern.lastIndex = 0
        const next = text.replace(rule.pattern, rule.replacement)
        if (next !== text) changed = true
        return next
      })
    }
    if (changed) fired.push(rule.name)
  }
  return { input: current, fired }
}

export function validateNormalizers(rules: readonly Normalizer[]): void {
  const names = new Set<string>()
  for (const rule of rules) {
    if (!rule.name) {
      throw new ConfigError({
        what: 'Invalid normalizer',
        why: 'every normalizer needs a name, which is how it is reported when it fires',
        fix: 'Add a name, e.g. { name: "today", pattern: /\\d{4}-\\d{2}-\\d{2}/g, replacement: "<date>" }',
      })
    }
    if (names.has(rule.name)) {
      throw new ConfigError({
        what: `Duplicate normalizer name ${JSON.stringify(rule.name)}`,
        why: 'names identify rules in reports',
        fix: 'Give each normalizer its own name',
      })
    }
    names.add(rule.name)
    if (!('apply' in rule) && !(rule.pattern instanceof RegExp && rule.pattern.global)) {
      throw new ConfigError({
        what: `Invalid normalizer ${JSON.stringify(rule.name)}`,
        why: 'its pattern must be a RegExp with the g flag',
        fix: 'Write it as /…/g, or give an apply(input, kind) function instead',
      })
    }
  }
}
