// The diff package's modules one by one: its main entry loads every kind of diff it has.
import { diffArrays } from 'diff/lib/diff/array.js'
import { diffWords } from 'diff/lib/diff/word.js'
import { createPrintMask, cutForPrinting } from './format-message.js'
import { joinPath } from './json-path.js'

/**
 * Field-level diff of two JSON values, for divergence reports: one line per changed leaf,
 * addressed by a path such as `messages[1].content`. Arrays (messages, tools, content blocks)
 * are aligned by a longest common subsequence, so an inserted message is one added item rather
 * than every later item changed. Long strings are diffed word by word, and each separate edit
 * is shown with a little context around it.
 */
export interface FieldChange {
  path: string
  type: 'changed' | 'added' | 'removed'
  before?: unknown
  after?: unknown
}

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
    walkArrays(a, b, path, out, limit)
    return
  }
  if (isPlainObject(a) && isPlainObject(b)) {
    const keys = [...new Set([...Object.keys(a), ...Object.keys(b)])].sort()
    for (const key of keys) {
      const sub = joinPath(path, key)
      if (!(key in a)) out.push({ path: sub, type: 'added', after: b[key] })
      else if (!(key in b)) out.push({ path: sub, type: 'removed', before: a[key] })
      else if (key === 'query' && isPairList(a[key]) && isPairList(b[key]))
        walkQuery(a[key], b[key], sub, out, limit)
      else walk(a[key], b[key], sub, out, limit)
      if (out.length >= limit) return
    }
    return
  }
  out.push({ path: path || '(root)', type: 'changed', before: a, after: b })
}

/** `[["api-version", "2024-10-21"], …]`: a query as a list of name and value pairs. */
type PairList = [string, string][]

function isPairList(value: unknown): value is PairList {
  return (
    Array.isArray(value) &&
    value.every(
      (pair) =>
        Array.isArray(pair) &&
        pair.length === 2 &&
        typeof pair[0] === 'string' &&
        typeof pair[1] === 'string',
    )
  )
}

/**
 * A query (a list of name and value pairs, as a request's canonical input keeps it) is compared
 * by parameter name: `query.api-version: "2024-10-21" → "2025-04-01-preview"`, not as a pair that
 * left one position of a list and another that arrived. A name given twice has its values listed.
 */
function walkQuery(a: PairList, b: PairList, path: string, out: FieldChange[], limit: number): void {
  const byName = (pairs: PairList) => {
    const params = new Map<string, string[]>()
    for (const [name, value] of pairs) params.set(name, [...(params.get(name) ?? []), value])
    return params
  }
  const x = byName(a)
  const y = byName(b)
  const names = [...new Set([...x.keys(), ...y.keys()])].sort()
  const one = (values: string[] | undefined) => (values && values.length === 1 ? values[0] : values)
  for (const name of names) {
    if (out.length >= limit) return
    const sub = /^[\w.-]+$/.test(name) ? `${path}.${name}` : `${path}[${JSON.stringify(name)}]`
    const before = one(x.get(name))
    const after = one(y.get(name))
    if (before === undefined) out.push({ path: sub, type: 'added', after })
    else if (after === undefined) out.push({ path: sub, type: 'removed', before })
    else walk(before, after, sub, out, limit)
  }
}

/** Arrays beyond this many items each are compared index by index (alignment is quadratic at worst). */
const MAX_ALIGNED = 2000

function walkArrays(a: unknown[], b: unknown[], path: string, out: FieldChange[], limit: number): void {
  if (a.length > MAX_ALIGNED || b.length > MAX_ALIGNED) {
    for (let i = 0; i < Math.max(a.length, b.length) && out.length < limit; i++) {
      const sub = `${path}[${i}]`
      if (i >= a.length) out.push({ path: sub, type: 'added', after: b[i] })
      else if (i >= b.length) out.push({ path: sub, type: 'removed', before: a[i] })
      else walk(a[i], b[i], sub, out, limit)
    }
    return
  }
  // Runs of equal items, and between them the items removed from `a` and added in `b`.
  const parts = diffArrays(a, b, { comparator: sameJson })
  let ia = 0
  let ib = 0
  for (let p = 0; p < parts.length && out.length < limit; p++) {
    const part = parts[p]!
    if (!part.added && !part.removed) {
      ia += part.count
      ib += part.count
      continue
    }
    // A removed run followed by an added run is a replacement: pair the items that are edits
    // of each other (a changed message), and report the others as removed or added.
    const removed = part.removed ? part.count : 0
    const next = parts[p + 1]
    const added = part.added ? part.count : next?.added && part.removed ? next.count : 0
    if (part.removed && next?.added) p++
    const pairs = pairEdits(a.slice(ia, ia + removed), b.slice(ib, ib + added))
    let ra = 0
    let rb = 0
    for (const [x, y] of [...pairs, [removed, added] as const]) {
      for (; ra < x; ra++) out.push({ path: `${path}[${ia + ra}]`, type: 'removed', before: a[ia + ra] })
      for (; rb < y; rb++) out.push({ path: `${path}[${ib + rb}]`, type: 'added', after: b[ib + rb] })
      if (x < removed && y < added) {
        walk(a[ia + x], b[ib + y], `${path}[${ib + y}]`, out, limit)
        ra = x + 1
        rb = y + 1
      }
    }
    ia += removed
    ib += added
  }
}

/**
 * Which removed item is an edit of which added item, in order: each removed item is paired with
 * the most similar added item after the last pair, when they are alike enough (same kind of
 * item, or mostly the same text). Returns index pairs.
 */
function pairEdits(removed: unknown[], added: unknown[]): (readonly [number, number])[] {
  const pairs: (readonly [number, number])[] = []
  let from = 0
  const texts = added.map((item) => JSON.stringify(item) ?? '')
  for (let x = 0; x < removed.length; x++) {
    const text = JSON.stringify(removed[x]) ?? ''
    let best = -1
    let bestScore = 0
    for (let y = from; y < added.length; y++) {
      const score = similarity(text, texts[y]!) + (sameKind(removed[x], added[y]) ? 0.25 : 0)
      if (score > bestScore) {
        best = y
        bestScore = score
      }
    }
    if (best >= 0 && bestScore >= 0.5) {
      pairs.push([x, best])
      from = best + 1
    }
  }
  return pairs
}

/** How many of their words two texts share (Dice's coefficient over the sets of words, 0 to 1). */
function similarity(a: string, b: string): number {
  if (a === b) return 1
  const words = (text: string) => new Set(text.split(/[^\p{L}\p{N}_]+/u).filter(Boolean))
  const x = words(a)
  const y = words(b)
  if (x.size + y.size === 0) return 0
  let shared = 0
  for (const word of x) if (y.has(word)) shared++
  return (2 * shared) / (x.size + y.size)
}

/** The same type of value, and for objects the same `role` / `type` / `name` (a message, a block, a tool). */
function sameKind(a: unknown, b: unknown): boolean {
  if (isPlainObject(a) && isPlainObject(b)) {
    return ['role', 'type', 'name'].every((field) => a[field] === b[field])
  }
  return typeof a === typeof b && Array.isArray(a) === Array.isArray(b)
}

function sameJson(a: unknown, b: unknown): boolean {
  if (Object.is(a, b)) return true
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false
  return JSON.stringify(a) === JSON.stringify(b)
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

/** Renders changes as report lines: `path: before → after`, a line per separate edit of a string. */
export function formatChanges(changes: readonly FieldChange[], max = 12): string[] {
  const lines = changes.slice(0, max).flatMap(formatChangeLines)
  if (changes.length > max) lines.push(`… and ${changes.length - max} more changed fields`)
  return lines
}

export function formatChange(change: FieldChange): string {
  return formatChangeLines(change).join('\n')
}

function formatChangeLines(change: FieldChange): string[] {
  if (change.type === 'added') return [`${change.path}: (absent) → ${preview(change.after)}`]
  if (change.type === 'removed') return [`${change.path}: ${preview(change.before)} → (absent)`]
  const { before, after } = change
  if (typeof before === 'string' && typeof after === 'string') {
    // Masked before the hunks cut them to a few words around the edit.
    const mask = createPrintMask()
    return diffStringHunks(mask(before), mask(after)).map(([x, y]) => `${change.path}: ${x} → ${y}`)
  }
  return [`${change.path}: ${preview(before)} → ${preview(after)}`]
}

/**
 * Shows two strings around the part that differs: the common prefix and suffix are cut to
 * a few words of context (at word boundaries) and replaced with `…`. One pair for all edits;
 * {@link diffStringHunks} gives one per separate edit.
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
  return [{ a: start, b: start, aEnd: before.length - end, bEnd: after.length - end }].map((edit) =>
    renderHunk(before, after, edit),
  )[0]!
}

interface Edit {
  /** Where the edit starts and ends in each string. */
  a: number
  aEnd: number
  b: number
  bEnd: number
}

/** Edits closer than this many characters are shown as one. */
const MERGE_GAP = 2 * CONTEXT + 16
/** Past this many edited words, the strings are shown as one edit. */
const MAX_EDIT_WORDS = 400

/**
 * Two long strings as a list of separate edits, each with a little context: two edits in
 * different sentences of one prompt are two pairs, not one long span from the first to the last.
 */
export function diffStringHunks(before: string, after: string): [string, string][] {
  if (before.length <= LONG_STRING && after.length <= LONG_STRING) {
    return [[JSON.stringify(before), JSON.stringify(after)]]
  }
  const parts = diffWords(before, after, { maxEditLength: MAX_EDIT_WORDS })
  if (!parts) return [diffStrings(before, after)]
  const edits: Edit[] = []
  let a = 0
  let b = 0
  for (const part of parts) {
    const length = part.value.length
    if (!part.added && !part.removed) {
      a += length
      b += length
      continue
    }
    const last = edits.at(-1)
    const edit = last && last.aEnd === a && last.bEnd === b ? last : { a, aEnd: a, b, bEnd: b }
    if (edit !== last) edits.push(edit)
    if (part.removed) a += length
    else b += length
    edit.aEnd = a
    edit.bEnd = b
  }
  if (edits.length === 0) return [diffStrings(before, after)]
  const merged: Edit[] = []
  for (const edit of edits) {
    const last = merged.at(-1)
    if (last && edit.a - last.aEnd < MERGE_GAP) {
      last.aEnd = edit.aEnd
      last.bEnd = edit.bEnd
    } else merged.push({ ...edit })
  }
  return merged.map((edit) => renderHunk(before, after, edit))
}

function renderHunk(before: string, after: string, edit: Edit): [string, string] {
  const fromA = wordStart(before, Math.max(0, edit.a - CONTEXT))
  const fromB = Math.max(0, fromA + (edit.b - edit.a))
  const toA = wordEnd(before, Math.min(before.length, edit.aEnd + CONTEXT))
  const toB = wordEnd(after, Math.min(after.length, edit.bEnd + CONTEXT))
  return [clip(before, fromA, toA), clip(after, fromB, toB)]
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

/** A short, single-line rendering of any JSON value, its secrets masked before it is cut. */
export function preview(value: unknown, max = 80): string {
  if (value === undefined) return 'undefined'
  return cutForPrinting(JSON.stringify(value) ?? String(value), max)
}
