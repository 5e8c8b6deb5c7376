import { ConfigError } from './errors.js'

/**
 * A field the key leaves out: a JSON path into a decision's canonical input, dot-separated,
 * where `*` stands for any key of an object or any item of an array and a number for an item
 * (`body.metadata.request_id`, `body.messages.*.id`), optionally for some kinds only. The field
 * is still stored, redacted like the rest of the input, so a person can read it.
 *
 * @example
 * 'body.metadata.request_id'
 * { path: 'args.idempotencyKey', kinds: ['tool'] }
 */
export type IgnoreRule = string | { path: string; kinds?: readonly string[] }

/** What the ignores left out of one input: the input without them, and the paths that matched. */
export interface IgnoreResult {
  input: unknown
  /** The rules' paths that matched a field of the input, each once. */
  matched: string[]
}

interface CompiledRule {
  path: string
  segments: readonly string[]
  kinds: readonly string[] | undefined
}

/** An item of an array a path leaves out: kept in place, so the items after it keep their index. */
export const IGNORED_ITEM = '<ignored>'

/**
 * Ignore rules compiled once per tape. An input none of them matches is returned as it is
 * (the same object), so a tape without ignores keys exactly as before.
 */
export class IgnorePaths {
  private readonly rules: readonly CompiledRule[]

  constructor(rules: readonly IgnoreRule[]) {
    this.rules = rules.map((rule, i) => compileRule(rule, i))
  }

  get size(): number {
    return this.rules.length
  }

  /** The paths, as written, for the cassette header and reports. */
  get paths(): string[] {
    return [...new Set(this.rules.map((r) => r.path))]
  }

  /** The input with every ignored field of `kind` left out; the input itself when none matched. */
  apply(kind: string, input: unknown): IgnoreResult {
    let current = input
    const matched: string[] = []
    for (const rule of this.rules) {
      if (rule.kinds && !rule.kinds.includes(kind)) continue
      const next = without(current, rule.segments, 0)
      if (next === current) continue
      current = next
      if (!matched.includes(rule.path)) matched.push(rule.path)
    }
    return { input: current, matched }
  }
}

/**
 * Checks ignore rules as given in options (`where` says where, for the message); throws a
 * {@link ConfigError} naming the bad one.
 */
export function validateIgnoreRules(rules: readonly IgnoreRule[], where?: string): void {
  if (!Array.isArray(rules)) throw invalidRules(rules, where)
  for (const [i, rule] of rules.entries()) compileRule(rule, i, where)
}

function invalidRules(rules: unknown, where: string | undefined): ConfigError {
  return new ConfigError({
    what: `Invalid ignore${where ? ` in ${where}` : ''}`,
    why: `it must be a list of paths, got ${JSON.stringify(rules)}`,
    fix: "Write ignore: ['body.metadata.request_id']",
  })
}

function compileRule(rule: IgnoreRule, index: number, where?: string): CompiledRule {
  const path = typeof rule === 'string' ? rule : rule?.path
  const invalid = (why: string) =>
    new ConfigError({
      what: `Invalid ignore rule #${index + 1} ${JSON.stringify(rule)}${where ? ` in ${where}` : ''}`,
      why,
      fix: "Write a dot-separated path into the canonical input, with * for any key or item: 'body.metadata.request_id', 'body.messages.*.id'",
    })
  if (typeof path !== 'string' || path.trim() === '') throw invalid('it has no path')
  const segments = path.split('.')
  if (segments.some((s) => s === '')) throw invalid('a path segment is empty (two dots, or a dot at an end)')
  const kinds = typeof rule === 'string' ? undefined : rule.kinds
  if (kinds !== undefined && (!Array.isArray(kinds) || kinds.some((k) => typeof k !== 'string')))
    throw invalid('its kinds must be an array of kind names, such as ["llm", "http"]')
  return { path, segments, kinds }
}

/** `value` without what `segments` names, copied along the path only where something was left out. */
function without(value: unknown, segments: readonly string[], at: number): unknown {
  if (typeof value !== 'object' || value === null) return value
  const segment = segments[at]!
  const last = at === segments.length - 1
  if (Array.isArray(value)) {
    let copy: unknown[] | undefined
    value.forEach((item, i) => {
      if (segment !== '*' && segment !== String(i)) return
      const next = last ? IGNORED_ITEM : without(item, segments, at + 1)
      if (next === item) return
      copy ??= value.slice()
      copy[i] = next
    })
    return copy ?? value
  }
  const record = value as Record<string, unknown>
  let copy: Record<string, unknown> | undefined
  for (const key of segment === '*' ? Object.keys(record) : [segment]) {
    if (!Object.hasOwn(record, key)) continue
    if (last) {
      copy ??= { ...record }
      delete copy[key]
      continue
    }
    const next = without(record[key], segments, at + 1)
    if (next === record[key]) continue
    copy ??= { ...record }
    copy[key] = next
  }
  return copy ?? value
}
