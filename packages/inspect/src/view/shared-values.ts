/**
 * Values that a run repeats, stored once. A model request resends the whole conversation, so a
 * 200-step run repeats its history 200 times: in the page, each long string and each large
 * object (a message, a tool schema, a decision both sides of a comparison recorded alike) is
 * kept once in a table and referenced by its index, and a list that extends a list already kept
 * (the same items, then more: the conversation one step on) is kept as that list and what it
 * adds. The run costs what it adds at each step rather than its square.
 *
 * Two forms of object stand for a value (their keys are ones no JSON a run exchanges uses):
 * - `{"\u0000": i}`, a reference: the value at `table[i]`.
 * - `{"\u0000+": [i, item1, item2, …]}`, an extension: the list that `table[i]` holds (resolved,
 *   so itself possibly an extension) followed by `item1`, `item2`, … (each possibly a reference).
 *   An extension is only ever an entry of the table, so that the next step can extend it in
 *   turn: a request's `messages` read `{"\u0000": j}`, where `table[j]` is `{"\u0000+": [i, …]}`.
 * The page resolves both when it shows a decision whole; {@link resolveShared} is the inverse.
 */
export const REF_KEY = '\u0000'
export const EXTEND_KEY = '\u0000+'

/** Strings at least this long are stored once. */
const SHARED_STRING = 120
/** Objects and lists whose JSON, as shared, is at least this long are stored once (a reference costs about 14). */
const SHARED_OBJECT = 48

type Ref = { [REF_KEY]: number }

/**
 * A value as shared, and its id: two values have the same id only when their JSON is the same
 * (`r` and the table index of a value stored once, `j` and the JSON of one written in place).
 */
interface Shared {
  id: string
  shared: unknown
}

/**
 * The lists in the table, as a trie of their items' ids: a list's node holds its table index.
 * Walking a list down it finds the longest list kept that the list starts with, one step an item.
 */
interface ListNode {
  children: Map<string, ListNode>
  at?: number
}

export class SharedValues {
  readonly table: unknown[] = []
  private readonly index = new Map<string, number>()
  private readonly lists: ListNode = { children: new Map() }
  /**
   * Objects already shared, by identity: a cassette's decisions hold the messages they did not
   * change as the same objects, so a long history is walked once, not once per request.
   * Values are not modified while a page is built from them.
   */
  private readonly seen = new WeakMap<object, Shared>()

  /** A copy of `value` with its long strings, large objects and known lists replaced by references. */
  share(value: unknown): unknown {
    return this.encode(value).shared
  }

  private encode(value: unknown): Shared {
    if (typeof value === 'string' && value.length >= SHARED_STRING) return this.keep(`s${value}`, value)
    if (typeof value !== 'object' || value === null) {
      return { id: `j${JSON.stringify(value)}`, shared: value }
    }
    let known = this.seen.get(value)
    if (!known) {
      known = Array.isArray(value) ? this.encodeList(value) : this.encodeObject(value)
      this.seen.set(value, known)
    }
    return known
  }

  private encodeObject(value: object): Shared {
    // Built as JSON.parse builds it, so that a key such as `__proto__` stays a key.
    const shared = Object.fromEntries(Object.entries(value).map(([key, child]) => [key, this.share(child)]))
    const json = JSON.stringify(shared)
    // The key is the JSON as shared: its parts already stand for their contents.
    return json.length < SHARED_OBJECT ? { id: `j${json}`, shared } : this.keep(`o${json}`, shared)
  }

  private encodeList(list: readonly unknown[]): Shared {
    const ids: string[] = []
    const items = list.map((item) => {
      const { id, shared } = this.encode(item)
      ids.push(id)
      return shared
    })
    // A short list is written in place, never as an extension, so that how a list is written
    // depends on its items alone (and an object holding it is known by its JSON as shared).
    if (!isLong(ids)) return { id: `j${JSON.stringify(items)}`, shared: items }
    let node = this.lists
    let prefix: { at: number; length: number } | undefined
    for (let i = 0; i < ids.length; i++) {
      const next = node.children.get(ids[i]!)
      if (!next) break
      node = next
      if (node.at !== undefined) prefix = { at: node.at, length: i + 1 }
    }
    if (prefix?.length === ids.length) return { id: `r${prefix.at}`, shared: { [REF_KEY]: prefix.at } }
    const at = this.table.length
    this.table.push(prefix ? { [EXTEND_KEY]: [prefix.at, ...items.slice(prefix.length)] } : items)
    this.addList(ids, at)
    return { id: `r${at}`, shared: { [REF_KEY]: at } }
  }

  private addList(ids: readonly string[], at: number): void {
    let node = this.lists
    for (const id of ids) {
      let next = node.children.get(id)
      if (!next) {
        next = { children: new Map() }
        node.children.set(id, next)
      }
      node = next
    }
    node.at = at
  }

  /** `key`: the string (`s…`) or the object's JSON as shared (`o…`), so neither is taken for the other. */
  private keep(key: string, value: unknown): Shared {
    let at = this.index.get(key)
    if (at === undefined) {
      at = this.table.length
      this.table.push(value)
      this.index.set(key, at)
    }
    return { id: `r${at}`, shared: { [REF_KEY]: at } as Ref }
  }
}

/** Whether a list of items with these ids is written in at least {@link SHARED_OBJECT} characters. */
function isLong(ids: readonly string[]): boolean {
  let length = 1
  for (const id of ids) {
    // A reference is written `{"\u0000":12}`: 11 characters and the index.
    length += (id.startsWith('r') ? 10 + id.length : id.length - 1) + 1
    if (length >= SHARED_OBJECT) return true
  }
  return false
}

/** The value with every reference and extension resolved (the inverse of {@link SharedValues.share}). */
export function resolveShared(value: unknown, table: readonly unknown[]): unknown {
  if (Array.isArray(value)) return value.map((item) => resolveShared(item, table))
  if (typeof value !== 'object' || value === null) return value
  const keys = Object.keys(value)
  if (keys.length === 1 && keys[0] === REF_KEY) {
    return resolveShared(table[(value as Record<string, number>)[REF_KEY]!], table)
  }
  if (isExtension(value)) return resolveExtension(value, table)
  return Object.fromEntries(Object.entries(value).map(([key, child]) => [key, resolveShared(child, table)]))
}

/**
 * The list an extension stands for. A 10,000-step run chains 10,000 of them: the chain is walked
 * in a loop, not by recursion, so that no stack is deep enough to matter.
 */
function resolveExtension(value: { [EXTEND_KEY]: unknown[] }, table: readonly unknown[]): unknown[] {
  const added: unknown[][] = []
  let entry: unknown = value
  while (isExtension(entry)) {
    const [at, ...items] = entry[EXTEND_KEY]
    added.push(items)
    entry = table[at as number]
  }
  const list = resolveShared(entry, table) as unknown[]
  for (let i = added.length - 1; i >= 0; i--)
    for (const item of added[i]!) list.push(resolveShared(item, table))
  return list
}

function isExtension(value: unknown): value is { [EXTEND_KEY]: unknown[] } {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false
  const keys = Object.keys(value)
  return keys.length === 1 && keys[0] === EXTEND_KEY
}
