/**
 * The subset of RFC 6902 JSON Patch that cassette format 2 stores inputs with: `add` (`/-`
 * appends to an array), `remove` and `replace`, addressed by JSON Pointers (RFC 6901).
 */
export type PatchOp =
  | { op: 'add'; path: string; value: unknown }
  | { op: 'replace'; path: string; value: unknown }
  | { op: 'remove'; path: string }

/** A step of a path inside a JSON value: a member name, or an array index. */
export type PathStep = string | number

/** An operation of a computed patch, with where its value lands in the patched input. */
export interface DiffOp {
  op: PatchOp
  /** The path of the value in the result (an append's index resolved). */
  at: PathStep[]
}

/** Thrown by {@link applyPatch} when an operation does not fit the value it is applied to. */
export class PatchError extends Error {
  override name = 'PatchError'
}

export function escapePointerToken(token: string): string {
  return token.replace(/~/g, '~0').replace(/\//g, '~1')
}

function pointer(steps: readonly PathStep[], append = false): string {
  let out = ''
  for (const step of steps) out += `/${typeof step === 'number' ? step : escapePointerToken(step)}`
  return append ? `${out}/-` : out
}

/**
 * The patch that turns `a` into `b` (both plain JSON data): nothing when equal; member by member
 * for two objects, index by index then appends or removals from the end for two arrays, and a
 * `replace` otherwise, or wherever the finer patch would not be shorter than the replacement.
 * Deterministic, and it keeps `b`'s member order. Subtrees shared by `a` and `b` are skipped.
 */
export function computePatch(a: unknown, b: unknown): DiffOp[] {
  const out: DiffOp[] = []
  diffInto(a, b, [], out)
  return out
}

// `at` is one stack for the whole walk, copied only into the operations it emits: a recording's
// inputs share no objects, and most of what the walk visits is equal.
function diffInto(a: unknown, b: unknown, at: PathStep[], out: DiffOp[]): void {
  if (a === b) return
  const start = out.length
  if (isPlainObject(a) && isPlainObject(b)) diffObjects(a, b, at, out)
  else if (Array.isArray(a) && Array.isArray(b)) diffArrays(a, b, at, out)
  else {
    out.push(replaceOp(b, at))
    return
  }
  if (out.length === start) return
  // The finer patch must earn its place: replace the value when that is not longer.
  const finer = opsLength(out, start)
  const replace = replaceOp(b, at)
  if (!jsonLongerThan(replace.op, finer)) out.splice(start, out.length - start, replace)
}

function diffObjects(
  a: Record<string, unknown>,
  b: Record<string, unknown>,
  at: PathStep[],
  out: DiffOp[],
): void {
  const aKeys = Object.keys(a)
  const bKeys = Object.keys(b)
  const child = (k: string) => {
    if (a[k] === b[k]) return
    at.push(k)
    diffInto(a[k], b[k], at, out)
    at.pop()
  }
  if (aKeys.length === bKeys.length && aKeys.every((k, i) => k === bKeys[i])) {
    for (const k of bKeys) child(k)
    return
  }
  // Members keep their place only while `b` lists them in `a`'s order; the rest are removed and
  // added again after them, so that the patched object has `b`'s member order.
  const kept = aKeys.filter((k) => Object.hasOwn(b, k))
  let inPlace = 0
  while (inPlace < kept.length && inPlace < bKeys.length && kept[inPlace] === bKeys[inPlace]) inPlace++
  const placed = new Set(bKeys.slice(0, inPlace))
  for (const k of aKeys) {
    if (!placed.has(k)) out.push({ op: { op: 'remove', path: pointer([...at, k]) }, at: [...at, k] })
  }
  for (let i = 0; i < bKeys.length; i++) {
    const k = bKeys[i]!
    if (i < inPlace) child(k)
    else out.push({ op: { op: 'add', path: pointer([...at, k]), value: b[k] }, at: [...at, k] })
  }
}

function diffArrays(a: unknown[], b: unknown[], at: PathStep[], out: DiffOp[]): void {
  const common = Math.min(a.length, b.length)
  for (let i = 0; i < common; i++) {
    if (a[i] === b[i]) continue
    at.push(i)
    diffInto(a[i], b[i], at, out)
    at.pop()
  }
  for (let i = common; i < b.length; i++)
    out.push({ op: { op: 'add', path: pointer(at, true), value: b[i] }, at: [...at, i] })
  for (let i = a.length - 1; i >= b.length; i--)
    out.push({ op: { op: 'remove', path: pointer([...at, i]) }, at: [...at, i] })
}

function replaceOp(value: unknown, at: PathStep[]): DiffOp {
  return { op: { op: 'replace', path: pointer(at), value }, at: [...at] }
}

/** Characters of the JSON array of `ops.slice(start)` (brackets and commas included). */
function opsLength(ops: readonly DiffOp[], start: number): number {
  let length = 1
  for (let i = start; i < ops.length; i++) length += JSON.stringify(ops[i]!.op).length + 1
  return length
}

/**
 * Whether `value`'s JSON is longer than `limit` characters, reading no more of it than needed:
 * deciding against replacing the whole history by an appended message costs the message, not
 * the history.
 */
export function jsonLongerThan(value: unknown, limit: number): boolean {
  let budget = limit
  const visit = (node: unknown): boolean => {
    if (typeof node === 'string') {
      // An escaped string is at least its length plus the quotes.
      if (node.length + 2 > budget) return true
      budget -= JSON.stringify(node).length
      return budget < 0
    }
    if (Array.isArray(node)) {
      budget -= node.length === 0 ? 2 : node.length + 1
      if (budget < 0) return true
      for (const item of node) if (visit(item === undefined ? null : item)) return true
      return false
    }
    if (typeof node === 'object' && node !== null) {
      const keys = Object.keys(node).filter((k) => (node as Record<string, unknown>)[k] !== undefined)
      budget -= keys.length === 0 ? 2 : keys.length * 2 + 1
      if (budget < 0) return true
      for (const k of keys) {
        if (visit(k) || visit((node as Record<string, unknown>)[k])) return true
      }
      return false
    }
    budget -= String(JSON.stringify(node) ?? 'null').length
    return budget < 0
  }
  return visit(value)
}

/** The member names and indexes of a JSON Pointer, unescaped (`~1` is `/`, `~0` is `~`). */
export function parsePointer(path: string): string[] {
  if (path === '') return []
  if (path.charCodeAt(0) !== 0x2f)
    throw new PatchError(`the path ${JSON.stringify(path)} does not start with "/"`)
  const tokens = path.slice(1).split('/')
  // Most paths escape nothing: their tokens are used as they are.
  if (!path.includes('~')) return tokens
  for (let i = 0; i < tokens.length; i++) {
    const token = tokens[i]!
    if (/~(?![01])/.test(token))
      throw new PatchError(`the path ${JSON.stringify(path)} has a "~" that is not "~0" or "~1"`)
    tokens[i] = token.replace(/~1/g, '/').replace(/~0/g, '~')
  }
  return tokens
}

/** Checks the shape of a patch read from a file; throws a {@link PatchError} saying what is wrong. */
export function validatePatch(patch: unknown): asserts patch is PatchOp[] {
  if (!Array.isArray(patch)) throw new PatchError('"patch" is not an array')
  patch.forEach((op, i) => {
    const where = `patch operation ${i + 1}`
    if (!isPlainObject(op)) throw new PatchError(`${where} is not an object`)
    if (op.op !== 'add' && op.op !== 'remove' && op.op !== 'replace')
      throw new PatchError(`${where} has op ${JSON.stringify(op.op)}, not "add", "remove" or "replace"`)
    if (typeof op.path !== 'string') throw new PatchError(`${where} has no string "path"`)
    try {
      parsePointer(op.path)
    } catch (error) {
      throw new PatchError(`${where}: ${(error as Error).message}`)
    }
    for (const member in op) {
      if (member === 'op' || member === 'path' || (member === 'value' && op.op !== 'remove')) continue
      if (Object.hasOwn(op, member))
        throw new PatchError(`${where} (${op.op}) has an unexpected member "${member}"`)
    }
    if (op.op !== 'remove' && !Object.hasOwn(op, 'value'))
      throw new PatchError(`${where} (${op.op} ${op.path}) has no "value"`)
  })
}

/**
 * `base` with `patch` applied, sharing everything the patch does not touch: each object or array
 * on a touched path is copied once (however many operations touch it), and `base` is never
 * modified. Throws a {@link PatchError} when an operation does not fit.
 */
export function applyPatch(base: unknown, patch: readonly PatchOp[]): unknown {
  return applyPatchOwned(base, patch, new Set())
}

/**
 * {@link applyPatch} over a value some of whose containers are `owned`: those are modified in
 * place, any other container on a touched path is copied once and becomes owned. Applying a
 * chain of patches with one set copies a growing history's array once, not once a step. Each
 * operation's path in the result (an append's index resolved) is pushed to `at` when given.
 */
export function applyPatchOwned(
  base: unknown,
  patch: readonly PatchOp[],
  owned: Set<object>,
  at?: PathStep[][],
): unknown {
  const own = (value: object): Record<string, unknown> | unknown[] => {
    if (owned.has(value)) return value as Record<string, unknown>
    const copy = Array.isArray(value) ? value.slice() : { ...(value as Record<string, unknown>) }
    owned.add(copy)
    return copy
  }
  let root = base
  patch.forEach((op, i) => {
    const fail = (why: string) =>
      new PatchError(`patch operation ${i + 1} (${op.op} ${JSON.stringify(op.path)}): ${why}`)
    const tokens = parsePointer(op.path)
    if (tokens.length === 0) {
      if (op.op === 'remove') throw fail('the whole input cannot be removed')
      root = op.value
      at?.push([])
      return
    }
    if (!isContainer(root)) throw fail('the input is not an object or an array')
    root = own(root)
    let node = root as Record<string, unknown> | unknown[]
    const path: PathStep[] = []
    for (let t = 0; t < tokens.length - 1; t++) {
      const token = tokens[t]!
      const index = memberOf(node, token)
      const child = index === undefined ? undefined : (node as Record<string, unknown>)[index]
      if (index === undefined || !isContainer(child))
        throw fail(`${pointerOf(tokens, t + 1)} is ${describeMissing(node, token)}`)
      const copy = own(child)
      if (copy !== child) setMember(node, index, copy)
      node = copy
      path.push(index)
    }
    const last = tokens[tokens.length - 1]!
    if (Array.isArray(node)) {
      const append = last === '-' && op.op === 'add'
      const index = append ? node.length : arrayIndex(last)
      const max = op.op === 'add' ? node.length : node.length - 1
      if (index === undefined || index > max)
        throw fail(`${JSON.stringify(last)} is not an index of the array (length ${node.length})`)
      if (append) node.push(op.value)
      else if (op.op === 'add') node.splice(index, 0, op.value)
      else if (op.op === 'replace') node[index] = op.value
      else node.splice(index, 1)
      path.push(index)
      at?.push(path)
      return
    }
    if (op.op !== 'add' && !Object.hasOwn(node, last))
      throw fail(`the object has no member ${JSON.stringify(last)}`)
    if (op.op === 'remove') delete node[last]
    else setMember(node, last, op.value)
    path.push(last)
    at?.push(path)
  })
  return root
}

/** The index or member name `token` names in `node`, when `node` has it. */
function memberOf(node: Record<string, unknown> | unknown[], token: string) {
  if (Array.isArray(node)) {
    const index = arrayIndex(token)
    return index !== undefined && index < node.length ? index : undefined
  }
  return Object.hasOwn(node, token) ? token : undefined
}

function describeMissing(node: Record<string, unknown> | unknown[], token: string): string {
  if (memberOf(node, token) === undefined)
    return Array.isArray(node) ? `out of the array (length ${node.length})` : 'missing'
  return 'not an object or an array'
}

function pointerOf(tokens: readonly string[], count: number): string {
  return JSON.stringify(pointer(tokens.slice(0, count)))
}

function arrayIndex(token: string): number | undefined {
  return /^(0|[1-9][0-9]*)$/.test(token) ? Number(token) : undefined
}

function setMember(node: Record<string, unknown> | unknown[], key: string | number, value: unknown): void {
  // A member named "__proto__" is data in JSON; an assignment would set the prototype instead.
  if (key === '__proto__')
    Object.defineProperty(node, key, { value, writable: true, enumerable: true, configurable: true })
  else (node as Record<string, unknown>)[key] = value
}

function isContainer(value: unknown): value is object {
  return typeof value === 'object' && value !== null
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}
