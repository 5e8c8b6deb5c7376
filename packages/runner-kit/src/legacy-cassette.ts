import type { CassetteStore, TapeMode } from '@agent-tape/core/internal'
import { cassetteFolderFor } from './cassette-path.js'

export interface CassetteChoice {
  /** The cassette the tape reads and writes. */
  path: string
  /** Set when `path` is the tape's former path: where the cassette belongs now. */
  movesTo?: string
}

export interface ChooseCassetteInput {
  store: CassetteStore
  testFile: string
  cassetteDir: string
  /** The tape's name; its cassette's former name, before the describe path named it. */
  name: string
  /** The cassette path the tape's describe path gives it. */
  path: string
  /** Whether no other tape of the file has the name `name` (the runner's registry knows). */
  uniqueName: boolean
  mode: TapeMode
}

/**
 * The cassette a tape reads: the one its describe path gives it, or, until it exists, the one a
 * tape in describe blocks was given before cassettes were named by their describe path,
 * `<test file folder>/<name>.jsonl`, so the cassettes of existing projects still replay. Only
 * when the tape's name is the only one of its kind in the file, as every tape name then was;
 * never when re-recording, which writes the new path (the former one is then obsolete).
 * See decision 0024.
 */
export async function chooseCassette(input: ChooseCassetteInput): Promise<CassetteChoice> {
  const former = `${cassetteFolderFor(input.testFile, input.cassetteDir)}/${input.name}.jsonl`
  if (former === input.path || !input.uniqueName || input.mode === 'update' || input.mode === 'live') {
    return { path: input.path }
  }
  if ((await input.store.read(input.path)) !== null) return { path: input.path }
  if ((await input.store.read(former)) === null) return { path: input.path }
  return { path: former, movesTo: input.path }
}
