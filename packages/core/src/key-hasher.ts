import { createHash, type Hash } from 'node:crypto'
import { type DecisionKey, type DecisionPosition, keyMaterial, stableJson } from './canonical-key.js'

/**
 * Computes decision keys exactly as {@link computeKey} does, for a tape whose successive inputs
 * share a long prefix: an agent loop re-sends its whole message history at every step.
 *
 * - The stable JSON comes from the native serializer over a copy with sorted keys (the same text
 *   as `fast-json-stable-stringify`, in a fraction of the time).
 * - The sha256 state is kept at checkpoints along the previous key material of the same kind
 *   and lane. The key material ends with the step, so the history is a shared prefix: only the
 *   bytes after the last checkpoint that still agrees are hashed again.
 *
 * Inputs must be JSON data (what `JSON.parse` or `toJsonData` returns); anything else is
 * serialized by the reference implementation.
 */
export class KeyHasher {
  private readonly trails = new Map<string, Trail>()

  key(kind: string, input: unknown, position: DecisionPosition): DecisionKey {
    const trailId = `${kind}\u0000${position.lane ?? ''}`
    const trail = hashAlong(stableJsonData(keyMaterial(input, position)), this.trails.get(trailId))
    this.trails.set(trailId, trail)
    return `${kind}:${trail.digest.slice(0, 16)}`
  }
}

interface Checkpoint {
  /** Offset in the material (UTF-16 units) up to which `hash` has been fed. */
  end: number
  hash: Hash
}

interface Trail {
  material: string
  checkpoints: Checkpoint[]
  digest: string
}

const CHUNK = 8 * 1024

/** sha256 of `material`, resuming from the last checkpoint of `previous` whose prefix it shares. */
function hashAlong(material: string, previous: Trail | undefined): Trail {
  const checkpoints: Checkpoint[] = []
  let start = 0
  for (const checkpoint of previous?.checkpoints ?? []) {
    const { end } = checkpoint
    if (end > material.length || material.slice(start, end) !== previous!.material.slice(start, end)) break
    checkpoints.push(checkpoint)
    start = end
  }
  const hash = start === 0 ? createHash('sha256') : checkpoints[checkpoints.length - 1]!.hash.copy()
  while (material.length - start > CHUNK) {
    let end = start + CHUNK
    // Never split a surrogate pair: each chunk is UTF-8 encoded on its own.
    if (isHighSurrogate(material.charCodeAt(end - 1))) end++
    hash.update(material.slice(start, end))
    checkpoints.push({ end, hash: hash.copy() })
    start = end
  }
  hash.update(material.slice(start))
  return { material, checkpoints, digest: hash.digest('hex') }
}

function isHighSurrogate(code: number): boolean {
  return code >= 0xd800 && code <= 0xdbff
}

/**
 * The stable JSON of JSON data, equal to `fast-json-stable-stringify`'s: a copy of the value
 * whose objects have their keys inserted in sorted order (objects already in order are shared,
 * not copied) goes through the native `JSON.stringify`, which emits members in insertion order.
 * Values where that order would not hold or the serializers could differ (numeric keys, which
 * objects always list first; `__proto__` members; `toJSON` methods; class instances) take the
 * reference path.
 */
export function stableJsonData(value: unknown): string {
  const sorted = withSortedKeys(value)
  return sorted === UNSUPPORTED ? stableJson(value) : JSON.stringify(sorted)
}

const UNSUPPORTED = Symbol('unsupported')

function withSortedKeys(value: unknown): unknown {
  if (typeof value !== 'object' || value === null) return value
  if (Array.isArray(value)) {
    let copy: unknown[] | undefined
    for (let i = 0; i < value.length; i++) {
      const next = withSortedKeys(value[i])
      if (next === UNSUPPORTED) return UNSUPPORTED
      if (next !== value[i]) {
        copy ??= value.slice()
        copy[i] = next
      }
    }
    return copy ?? value
  }
  const proto = Object.getPrototypeOf(value)
  if (proto !== Object.prototype && proto !== null) return UNSUPPORTED
  const record = value as Record<string, unknown>
  const keys = Object.keys(record)
  let inOrder = true
  for (let i = 0; i < keys.length; i++) {
    const key = keys[i]!
    const first = key.charCodeAt(0)
    if ((first >= 48 && first <= 57) || key === '__proto__') return UNSUPPORTED
    if (key === 'toJSON' && typeof record[key] === 'function') return UNSUPPORTED
    if (i > 0 && keys[i - 1]! > key) inOrder = false
  }
  if (!inOrder) keys.sort()
  let copy: Record<string, unknown> | undefined = inOrder ? undefined : {}
  for (const key of keys) {
    const item = record[key]
    const next = withSortedKeys(item)
    if (next === UNSUPPORTED) return UNSUPPORTED
    if (copy) copy[key] = next
    else if (next !== item) {
      copy = { ...record }
      copy[key] = next
    }
  }
  return copy ?? value
}
