import { readFile } from 'node:fs/promises'
import { isDeepStrictEqual } from 'node:util'
import {
  CASSETTE_FORMAT_VERSION,
  type Cassette,
  isCassetteCorruptError,
  parseCassette,
  serializeCassette,
} from '@agent-tape/core/internal'
import { writeFileAtomic } from '@agent-tape/core/node'

export type Migration =
  /** Written (or, with `check`, to be written) in the current format. */
  | { status: 'migrated'; from: number; bytesBefore: number; bytesAfter: number }
  /** Already in the current format: left alone. */
  | { status: 'current'; bytes: number }
  /** Damaged, or its new text would not read back as the same cassette: left as it was. */
  | { status: 'failed'; reason: string }

/**
 * Rewrites one cassette in the current format, through a temporary file renamed over it, after
 * checking that the new text reads back as the same cassette (decisions, and header but for its
 * version). With `check`, writes nothing and says what it would do.
 */
export async function migrateFile(file: string, shown: string, check: boolean): Promise<Migration> {
  const text = await readFile(file, 'utf8')
  let cassette: Cassette
  try {
    cassette = parseCassette(text, shown)
  } catch (error) {
    if (!isCassetteCorruptError(error)) throw error
    return { status: 'failed', reason: `line ${error.line}: ${error.reason}` }
  }
  const from = cassette.header.agentTape
  if (from >= CASSETTE_FORMAT_VERSION) return { status: 'current', bytes: Buffer.byteLength(text) }
  const migrated: Cassette = {
    header: { ...cassette.header, agentTape: CASSETTE_FORMAT_VERSION },
    decisions: cassette.decisions,
  }
  const next = serializeCassette(migrated)
  const problem = differenceAfterReading(cassette, next, shown)
  if (problem) return { status: 'failed', reason: `${problem}; the file was left as it was` }
  if (!check) await writeFileAtomic(file, next)
  return {
    status: 'migrated',
    from,
    bytesBefore: Buffer.byteLength(text),
    bytesAfter: Buffer.byteLength(next),
  }
}

/** What reading `text` back changes in `cassette`, if anything. */
function differenceAfterReading(cassette: Cassette, text: string, shown: string): string | undefined {
  let read: Cassette
  try {
    read = parseCassette(text, shown)
  } catch (error) {
    if (!isCassetteCorruptError(error)) throw error
    return `its text in format ${CASSETTE_FORMAT_VERSION} does not read back (line ${error.line}: ${error.reason})`
  }
  const { agentTape: _, ...header } = read.header
  const { agentTape: __, ...before } = cassette.header
  if (!isDeepStrictEqual(withoutUndefined(header), withoutUndefined(before)))
    return `its header would not read back the same in format ${CASSETTE_FORMAT_VERSION} (a field this version does not know?)`
  if (read.decisions.length !== cassette.decisions.length)
    return `it would read back with ${read.decisions.length} decisions instead of ${cassette.decisions.length}`
  const at = cassette.decisions.findIndex((d, i) => !isDeepStrictEqual(d, read.decisions[i]))
  if (at !== -1)
    return `decision #${at + 1} would not read back the same in format ${CASSETTE_FORMAT_VERSION} (a field this version does not know?)`
  return undefined
}

function withoutUndefined(value: object): object {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined))
}
