import { createHash } from 'node:crypto'
import stableStringify from 'fast-json-stable-stringify'

/**
 * Version of the key scheme. It is written in every cassette header; changing how keys are
 * computed means bumping it, so an old cassette is reported as needing migration instead of
 * silently missing on every decision.
 */
export const KEY_SCHEME_VERSION = 1

/** A decision key: `<kind>:<16 hex digits>`. */
export type DecisionKey = `${string}:${string}`

/** Where in the run a decision was made: the model-request ordinal, within an async lane. */
export interface DecisionPosition {
  step: number
  /** Lane path for decisions made inside `tape.lane(name, fn)`; absent on the main lane. */
  lane?: string
}

const KIND_PATTERN = /^[a-z][a-z0-9_-]{0,31}$/
const KEY_PATTERN = /^[a-z][a-z0-9_-]{0,31}:[0-9a-f]{16}$/

/** Deterministic JSON: object keys sorted, no whitespace, `undefined` members dropped. */
export function stableJson(value: unknown): string {
  return stableStringify(value)
}

export function isValidKind(kind: string): boolean {
  return KIND_PATTERN.test(kind)
}

export function isDecisionKey(value: unknown): value is DecisionKey {
  return typeof value === 'string' && KEY_PATTERN.test(value)
}

/**
 * Computes the key of a decision: `kind:` + the first 16 hex digits of sha256 over the stable
 * JSON of the canonical input and its position (step, and lane when not the main one).
 *
 * @example
 * computeKey('tool', { name: 'lookup_invoice', args: [{ id: 'INV-412' }] }, { step: 1 })
 * // => 'tool:3b0c…'
 */
export function computeKey(kind: string, input: unknown, position: DecisionPosition): DecisionKey {
  const digest = createHash('sha256')
    .update(stableJson(keyMaterial(input, position)))
    .digest('hex')
  return `${kind}:${digest.slice(0, 16)}`
}

/** What a key hashes: the input and its position (the lane only when not the main one). */
export function keyMaterial(input: unknown, position: DecisionPosition): object {
  return position.lane === undefined
    ? { input, step: position.step }
    : { input, lane: position.lane, step: position.step }
}
