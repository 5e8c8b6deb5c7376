import { readdir, readFile, stat } from 'node:fs/promises'
import { join } from 'node:path'
import { DEFAULT_CASSETTE_DIR } from '@agent-tape/runner-kit'
import { SKIPPED_DIRS } from '../cassette-files.js'
import { readTapeNames } from './tape-names.js'

/** The verdict on one folder of cassettes, `<dir>/__cassettes__/<test file>/`. */
export interface CassetteFolder {
  /** Absolute path of the folder. */
  folder: string
  /** Absolute path of the test file that owns it. */
  testFile: string
  testFileExists: boolean
  /** Cassettes no test declares any more: every one when the test file is gone. */
  obsolete: { file: string; name: string }[]
  /** Set when the test file names tapes dynamically: none of its cassettes is judged. */
  cannotTell?: { line: number; reason: string; kept: number }
}

/**
 * Finds the cassettes whose tests no longer exist, by reading test files statically: the
 * folder `__cassettes__/<test file>/` of a test file that is gone, and `<name>.jsonl` files
 * whose name no `it.tape('<name>', …)` of the test file declares. A test file that names tapes
 * dynamically is reported and left alone.
 */
export async function findObsoleteFolders(dirs: readonly string[]): Promise<CassetteFolder[]> {
  const folders: CassetteFolder[] = []
  for (const cassetteDir of await findCassetteDirs(dirs)) {
    const parent = join(cassetteDir, '..')
    for (const entry of await sortedEntries(cassetteDir)) {
      if (!entry.isDirectory()) continue
      const folder = join(cassetteDir, entry.name)
      const testFile = join(parent, entry.name)
      const cassettes = (await sortedEntries(folder))
        .filter((e) => e.isFile() && e.name.endsWith('.jsonl'))
        .map((e) => ({ file: join(folder, e.name), name: e.name.slice(0, -'.jsonl'.length) }))
      const info = await stat(testFile).catch(() => undefined)
      const verdict: CassetteFolder = {
        folder,
        testFile,
        testFileExists: info?.isFile() === true,
        obsolete: [],
      }
      if (!verdict.testFileExists) {
        verdict.obsolete = cassettes
      } else {
        const declared = readTapeNames(await readFile(testFile, 'utf8'))
        if (declared.dynamic) verdict.cannotTell = { ...declared.dynamic, kept: cassettes.length }
        else verdict.obsolete = cassettes.filter((c) => !declared.names.has(c.name))
      }
      if (verdict.obsolete.length > 0 || verdict.cannotTell) folders.push(verdict)
    }
  }
  return folders
}

async function findCassetteDirs(dirs: readonly string[]): Promise<string[]> {
  const found: string[] = []
  const walk = async (dir: string): Promise<void> => {
    for (const entry of await sortedEntries(dir)) {
      if (!entry.isDirectory() || SKIPPED_DIRS.has(entry.name)) continue
      const full = join(dir, entry.name)
      if (entry.name === DEFAULT_CASSETTE_DIR) found.push(full)
      else await walk(full)
    }
  }
  for (const dir of dirs) {
    if (dir.endsWith(`/${DEFAULT_CASSETTE_DIR}`) || dir.endsWith(`\\${DEFAULT_CASSETTE_DIR}`)) found.push(dir)
    else await walk(dir)
  }
  return [...new Set(found)].sort()
}

async function sortedEntries(dir: string) {
  const entries = await readdir(dir, { withFileTypes: true }).catch(() => [])
  return entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
}
