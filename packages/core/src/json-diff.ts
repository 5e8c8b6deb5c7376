/**
 * Field-level diff of two JSON values, for divergence reports: one line per changed leaf,
 * addressed by a path such as `messages[1].content`. Long strings are diffed within the
 * string, so a one-word prompt edit shows as that word with a little context around it.
 */
export interface FieldChange {
  path: string
  type: 'changed' | 'added' | 'removed'
  before?: unknown
  after?: unknown
}

const IDENTIFIER = /^[A-Za-z_$][A-Za-z0-9_$]*$/
const LONG_STRING = 48
const CONTEXT = 24

export function diffJson(before: unknown, after: unknown, limit = 200): FieldChange[] {
  const changes: FieldChange[] = []
  walk(before, after, '', changes, limit)
  return changes
}

function walk(a: unknown, b: unknown, path: string, out: FieldChange[], limit: number): void {
  if (out.length >= limit) return
  if (Object.is(a, b)) return
  if (Array.isArray(a) && Array.isArray(b)) {
    const length = Math.max(a.length, b.length)
    for (let i = 0; i < length; i++) {
      const sub = `${path}[${i}]`
      if (i >= a.length) out.push({ path: sub, type: 'added', after: b[i] })
      else if (i >= b.length) out.push({ path: sub, type: 'removed', before: a[i] })
      else walk(a[i], b[i], sub, out, limit)
      if (out.length >= limit) return
    }
    return
  }
  if (isPlainObject(a) && isPlainObject(b)) {
    const keys = [...new Set([...Object.keys(a), ...Object.keys(b)])].sort()
    for (const key of keys) {
      const sub = joinPath(path, key)
      if (!(key in a)) out.push({ path: sub, type: 'added', after: b[key] })
      else if (!(key in b)) out.push({ path: sub, type: 'removed', before: a[key] })
      else walk(a[key], b[key], sub, out, limit)
      if (out.length >= limit) return
    }
    return
  }
  out.push({ path: path || '(root)', type: 'changed', before: a, after: b })
}

export function joinPath(path: string, key: string): string {
  if (IDENTIFIER.test(key)) return path ? `${path}.${key}` : key
  return `${path}[${JSON.stringify(key)}]`
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

/** Renders changes as report lines: `path: before → after`. */
export function formatChanges(changes: readonly FieldChange[], max = 12): string[] {
  const lines = changes.slice(0, max).map(formatChange)
  if (changes.length > max) lines.push(`… and ${changes.length - max} more changed fields`)
  return lines
}

export function formatChange(change: FieldChange): string {
  if (change.type === 'added') return `${change.path}: (absent) → ${preview(change.after)}`
  if (change.type === 'removed') return `${change.path}: ${preview(change.before)} → (absent)`
  const { before, after } = change
  if (typeof before === 'string' && typeof after === 'string') {
    const [x, y] = diffStrings(before, after)
    return `${change.path}: ${x} → ${y}`
  }
  return `${change.path}: ${preview(before)} → ${preview(after)}`
}

/**
 * Shows two strings around the part that differs: the common prefix and suffix are cut to
 * a few words of context (at word boundaries) and replaced with `…`.
 */
export function diffStrings(before: string, after: string): [string, string] {
  if (before.length <= LONG_STRING && after.length <= LONG_STRING) {
    return [JSON.stringify(before), JSON.stringify(after)]
  }
  let start = 0
  const shortest = Math.min(before.length, after.length)
  while (start < shortest && before[start] === after[start]) start++
  let end = 0
  while (end < shortest - start && before[before.length - 1 - end] === after[after.length - 1 - end]) {
    end++
  }
  const from = wordStart(before, Math.max(0, start - CONTEXT))
  const toBefore = wordEnd(before, Math.min(before.length, before.length - end + CONTEXT))
  const toAfter = wordEnd(after, Math.min(after.length, after.length - end + CONTEXT))
  return [clip(before, from, toBefore), clip(after, from, toAfter)]
}

function wordStart(text: string, index: number): number {
  if (index === 0) return 0
  const space = text.indexOf(' ', index)
  return space === -1 || space - index > 12 ? index : space + 1
}

function wordEnd(text: string, index: number): number {
  if (index >= text.length) return text.length
  const space = text.lastIndexOf(' ', index)
  return space === -1 || index - space > 12 ? index : space
}

function clip(text: string, from: number, to: number): string {
  const body = JSON.stringify(text.slice(from, to)).slice(1, -1)
  return `"${from > 0 ? '…' : ''}${body}${to < text.length ? '…' : ''}"`
}

/** A short, single-line rendering of any JSON value. */
export function preview(value: unknown, max = 80): string {
  if (value === undefined) return 'undefined'
  const text = JSON.stringify(value) ?? String(value)
  return text.length > max ? `${text.slice(0, max - 1)}…` : text
}
