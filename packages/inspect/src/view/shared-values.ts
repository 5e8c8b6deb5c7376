/**
 * Values that a run repeats, stored once. A model request resends the whole conversation, so a
 * 200-step run repeats its history 200 times: in the page, each long string and each large item
 * of a list (a message, a tool schema) is kept once in a table and referenced by its index, and
 * the run costs what it adds at each step rather than its square.
 *
 * A reference is an object with the single key `"\u0000"` (a key no JSON a run exchanges uses):
 * `{"\u0000": 12}` is the 13th value of the table. The page resolves references when it shows
 * a decision whole.
 */
export const REF_KEY = '\u0000'

/** Strings at least this long are stored once. */
const SHARED_STRING = 120
/** List items whose JSON is at least this long are stored once (a reference costs about 14). */
const SHARED_ITEM = 48

export class SharedValues {
  readonly table: unknown[] = []
  private readonly index = new Map<string, number>()

  /** A copy of `value` with its long strings and large list items replaced by references. */
  share(value: unknown): unknown {
    if (typeof value === 'string') return value.length >= SHARED_STRING ? this.ref(`s${value}`, value) : value
    if (Array.isArray(value)) return value.map((item) => this.shareItem(item))
    if (typeof value !== 'object' || value === null) return value
    const out: Record<string, unknown> = {}
    for (const [key, child] of Object.entries(value)) out[key] = this.share(child)
    return out
  }

  private shareItem(item: unknown): unknown {
    if (typeof item !== 'object' || item === null) return this.share(item)
    const json = JSON.stringify(item)
    if (json.length < SHARED_ITEM) return this.share(item)
    const known = this.index.get(`j${json}`)
    if (known !== undefined) return { [REF_KEY]: known }
    // The item's own long strings are shared too: a tool's result is also in the next request.
    return this.ref(`j${json}`, this.share(item))
  }

  /** `id`: the string (`s…`) or the item's JSON (`j…`), so that neither is taken for the other. */
  private ref(id: string, value: unknown): { [REF_KEY]: number } {
    let at = this.index.get(id)
    if (at === undefined) {
      at = this.table.length
      this.table.push(value)
      this.index.set(id, at)
    }
    return { [REF_KEY]: at }
  }
}

/** The value with every reference resolved (the inverse of {@link SharedValues.share}). */
export function resolveShared(value: unknown, table: readonly unknown[]): unknown {
  if (Array.isArray(value)) return value.map((item) => resolveShared(item, table))
  if (typeof value !== 'object' || value === null) return value
  const keys = Object.keys(value)
  if (keys.length === 1 && keys[0] === REF_KEY) {
    return resolveShared(table[(value as Record<string, number>)[REF_KEY]!], table)
  }
  const out: Record<string, unknown> = {}
  for (const [key, child] of Object.entries(value)) out[key] = resolveShared(child, table)
  return out
}
