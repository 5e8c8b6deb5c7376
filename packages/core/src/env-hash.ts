import { createHash, randomBytes } from 'node:crypto'
import type { DecisionRecord } from './cassette-format.js'

/**
 * An environment value as stored in a cassette: a short sha256, never the value. With the
 * cassette's salt (cassettes written since the header has `envSalt`), the hash cannot be
 * looked up in a table of hashes of common values; older cassettes hash without one.
 */
export function hashEnvValue(value: string | undefined, salt?: string): string | null {
  if (value === undefined) return null
  const hash = createHash('sha256')
  if (salt !== undefined) hash.update(`${salt}\0`)
  return `sha256:${hash.update(value).digest('hex').slice(0, 16)}`
}

/** A new random salt for a cassette's env hashes. */
export function createEnvSalt(): string {
  return randomBytes(12).toString('hex')
}

export function describeEnvChange(before: string | null, now: string | null): string {
  if (before === null) return 'was unset when recorded, now set'
  if (now === null) return 'was set when recorded, now unset'
  return `changed (recorded ${before}, now ${now})`
}

/** The environment keys read during a recording, with their hashes, for the cassette header. */
export function envSummary(records: readonly DecisionRecord[]): Record<string, string | null> | undefined {
  const summary: Record<string, string | null> = {}
  let any = false
  for (const r of records) {
    if (r.kind !== 'env' || !r.out) continue
    Object.assign(summary, r.out)
    any = true
  }
  return any ? summary : undefined
}
