import { randomFillSync } from 'node:crypto'

// Crockford's base 32 in lower case: no i, l, o or u, so an id read aloud or retyped from a
// trace survives.
const ALPHABET = '0123456789abcdefghjkmnpqrstvwxyz'

// Random bytes drawn 64 ids at a time: one call to the system's source per 64 runs.
const POOL = Buffer.alloc(12 * 64)
let used = POOL.length

/** A run id: 12 characters of base 32 (60 random bits), unique across processes and machines. */
export function createRunId(): string {
  if (used === POOL.length) {
    randomFillSync(POOL)
    used = 0
  }
  let id = ''
  for (let i = used; i < used + 12; i++) id += ALPHABET[POOL[i]! & 31]
  used += 12
  return id
}

/**
 * The file of a captured run: `<time>_<name>_<run id>.jsonl`, the time first (UTC, `:` made `-`
 * for every file system) so that a listing is in the order the runs started, the name made safe
 * for a file name. See decision 0023.
 *
 * @example
 * runFileName(new Date('2026-12-01T12:26:02.123Z'), 'triage', 'k3j9x2p1qmzt')
 * // '2026-12-01T12-26-02.123Z_triage_k3j9x2p1qmzt.jsonl'
 */
export function runFileName(startedAt: Date, name: string, runId: string): string {
  return `${startedAt.toISOString().replaceAll(':', '-')}_${safeName(name)}_${runId}.jsonl`
}

/** Whether a file name is one capture writes: retention never touches any other file. */
export function isRunFileName(file: string): boolean {
  return RUN_FILE.test(file)
}

/** When the run of a file named by {@link runFileName} started, in epoch milliseconds. */
export function runStartOf(file: string): number {
  const stamp = file.slice(0, 24)
  return Date.parse(`${stamp.slice(0, 13)}:${stamp.slice(14, 16)}:${stamp.slice(17)}`)
}

const RUN_FILE = /^\d{4}-\d\d-\d\dT\d\d-\d\d-\d\d\.\d{3}Z_[A-Za-z0-9.-]{1,60}_[0-9a-hjkmnp-tv-z]{12}\.jsonl$/

/** Letters, digits, `.` and `-`, at most 60 of them; anything else becomes `-`. */
function safeName(name: string): string {
  const safe = name
    .replace(/[^A-Za-z0-9.-]+/g, '-')
    .replace(/^[.-]+|-+$/g, '')
    .slice(0, 60)
  return safe === '' ? 'run' : safe
}
