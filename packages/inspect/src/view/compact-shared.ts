import type { PageData } from './page-data.js'
import { EXTEND_KEY, REF_KEY } from './shared-values.js'

/**
 * The page's data with every value of its shared table that is used once written back in place.
 * `SharedValues` stores a value when it first meets it, before it can know whether it will meet
 * it again; a value used once costs its reference (about 15 bytes) and a slot of the table for
 * nothing. In a long run most of a response's parts (its body, headers, usage) are used once: a
 * 601-decision divergence page held 2,563 of them. What stays shared is what is used twice or
 * more, and every list another list extends; the table is renumbered.
 */
export function compactShared(data: PageData): PageData {
  const table = data.shared
  const uses = new Array<number>(table.length).fill(0)
  const extended = new Set<number>()
  const count = (value: unknown): void => {
    if (Array.isArray(value)) {
      for (const item of value) count(item)
      return
    }
    if (typeof value !== 'object' || value === null) return
    const ref = refOf(value)
    if (ref !== undefined) {
      uses[ref] = uses[ref]! + 1
      return
    }
    const extension = extensionOf(value)
    if (extension) {
      uses[extension[0]] = uses[extension[0]]! + 1
      extended.add(extension[0])
      for (const item of extension.slice(1)) count(item)
      return
    }
    for (const child of Object.values(value)) count(child)
  }
  count(data.sides)
  count(data.rows)
  for (const value of table) count(value)

  const kept = new Map<number, number>()
  table.forEach((_, i) => {
    if (uses[i]! > 1 || extended.has(i)) kept.set(i, kept.size)
  })
  const write = (value: unknown): unknown => {
    if (Array.isArray(value)) return value.map(write)
    if (typeof value !== 'object' || value === null) return value
    const ref = refOf(value)
    if (ref !== undefined) {
      const at = kept.get(ref)
      return at === undefined ? write(table[ref]) : { [REF_KEY]: at }
    }
    const extension = extensionOf(value)
    if (extension) return { [EXTEND_KEY]: [kept.get(extension[0]), ...extension.slice(1).map(write)] }
    const out: Record<string, unknown> = {}
    // Defined, not assigned: a recorded `__proto__` key stays a key.
    for (const [key, child] of Object.entries(value))
      Object.defineProperty(out, key, {
        value: write(child),
        enumerable: true,
        writable: true,
        configurable: true,
      })
    return out
  }
  const shared: unknown[] = []
  for (const [i] of kept) shared.push(write(table[i]))
  const compacted: PageData = { ...data, sides: write(data.sides) as PageData['sides'], shared }
  if (data.rows) compacted.rows = write(data.rows) as PageData['rows']
  return compacted
}

function refOf(value: object): number | undefined {
  const keys = Object.keys(value)
  return keys.length === 1 && keys[0] === REF_KEY ? (value as Record<string, number>)[REF_KEY] : undefined
}

function extensionOf(value: object): [number, ...unknown[]] | undefined {
  const keys = Object.keys(value)
  return keys.length === 1 && keys[0] === EXTEND_KEY
    ? (value as Record<string, [number, ...unknown[]]>)[EXTEND_KEY]
    : undefined
}
