import { readdir, readFile, stat } from 'node:fs/promises'
import { basename, dirname, join } from 'node:path'
import {
  type CollectedTestFile,
  cassetteNameFor,
  createCassetteListing,
  DEFAULT_CASSETTE_DIR,
  type DirectoryReader,
  findObsoleteCassettes,
  listCassettes,
  toPosix,
} from '@agent-tape/runner-kit'
import { SKIPPED_DIRS } from '../cassette-files.js'
import { readTapeNames } from './tape-names.js'

/** What the reading needs of a tree of files: the file system's, or a commit's (`diff --base`). */
export interface SourceTree extends DirectoryReader {
  stat(path: string): Promise<{ isFile(): boolean }>
  readFile(path: string): Promise<string>
}

const FILE_SYSTEM: SourceTree = { readdir, stat, readFile: (path) => readFile(path, 'utf8') }

export interface ObsoleteCassette {
  file: string
  /** The path inside the test file's folder, without `.jsonl`: `checkout/pays` in `describe('checkout')`. */
  name: string
  /** A cassette at its tape's former path: the tape (`checkout > pays`) and the cassette it reads now. */
  movedTo?: { tape: string; file: string }
}

/** The verdict on one folder of cassettes, `<dir>/__cassettes__/<test file>/`. */
export interface CassetteFolder {
  /** Absolute path of the folder. */
  folder: string
  /** Absolute path of the test file that owns it. */
  testFile: string
  testFileExists: boolean
  /**
   * Cassettes no test uses any more: every one when the test file is gone. `name` is the path
   * inside the folder without `.jsonl` (`checkout/pays`, for a tape in `describe('checkout')`).
   */
  obsolete: ObsoleteCassette[]
  /** Set when the test file names tapes dynamically: none of its cassettes is judged. */
  cannotTell?: { line: number; reason: string; kept: number }
}

/**
 * Why a cassette of `folder` is obsolete, as `prune` and `diff --base` say it; `show` prints a
 * path (relative to where the user stands).
 */
export function obsoleteReason(
  folder: CassetteFolder,
  cassette: ObsoleteCassette,
  show: (path: string) => string,
): string {
  if (!folder.testFileExists) return `${show(folder.testFile)} no longer exists`
  if (cassette.movedTo) return `the tape "${cassette.movedTo.tape}" reads ${show(cassette.movedTo.file)} now`
  return `${show(folder.testFile)} declares no tape ${JSON.stringify(cassette.name.split('/').join(' > '))}`
}

/**
 * Finds the cassettes whose tests no longer exist, by reading test files statically and judging
 * them as the runners do (`findObsoleteCassettes` of the runner kit): the folder
 * `__cassettes__/<test file>/` of a test file that is gone, and the cassettes, in it or in the
 * folders of its describe blocks, that no tape of the test file names by its describe path. A
 * cassette at a tape's former path (its name alone) is in use until the one at its describe path
 * exists. A test file that names tapes or describe blocks dynamically is reported and left alone.
 */
export async function findObsoleteFolders(
  dirs: readonly string[],
  fs: SourceTree = FILE_SYSTEM,
): Promise<CassetteFolder[]> {
  const folders: CassetteFolder[] = []
  for (const cassetteDir of await findCassetteDirs(dirs, fs)) {
    const parent = dirname(cassetteDir)
    const dirName = basename(cassetteDir)
    const listing = createCassetteListing(toPosix(parent), fs)
    const judged: CollectedTestFile[] = []
    const declaredBy = new Map<string, string[][]>()
    const verdicts: CassetteFolder[] = []
    for (const entry of await sortedEntries(cassetteDir, fs)) {
      if (!entry.isDirectory()) continue
      const folder = join(cassetteDir, entry.name)
      const testFile = join(parent, entry.name)
      const info = await fs.stat(testFile).catch(() => undefined)
      const verdict: CassetteFolder = {
        folder,
        testFile,
        testFileExists: info?.isFile() === true,
        obsolete: [],
      }
      verdicts.push(verdict)
      if (!verdict.testFileExists) continue
      const declared = readTapeNames(await fs.readFile(testFile))
      const tapes = declared.dynamic ? undefined : usableTapes(entry.name, declared.tapes)
      if (declared.dynamic || !tapes) {
        const reason = declared.dynamic ?? { line: 1, reason: 'a tape name is not one agent-tape accepts' }
        const kept = (await listCassettes(listing, `${dirName}/${entry.name}`)).length
        verdict.cannotTell = { ...reason, kept }
      } else {
        judged.push({ testFile: entry.name, tapes })
        declaredBy.set(entry.name, tapes)
      }
    }
    const obsolete = await findObsoleteCassettes(judged, listing, dirName)
    for (const verdict of verdicts) {
      const prefix = `${dirName}/${basename(verdict.folder)}/`
      verdict.obsolete = obsolete
        .filter((path) => path.startsWith(prefix))
        .map((path) => {
          const name = path.slice(prefix.length, -'.jsonl'.length)
          const testFile = basename(verdict.folder)
          const moved = movedTo(verdict.folder, testFile, name, declaredBy.get(testFile))
          return { file: join(parent, path), name, ...(moved ? { movedTo: moved } : {}) }
        })
      if (verdict.obsolete.length > 0 || verdict.cannotTell) folders.push(verdict)
    }
  }
  return folders
}

/** Where the tape of a cassette at its former path (its name alone) reads its cassette now. */
function movedTo(folder: string, testFile: string, name: string, tapes: string[][] | undefined) {
  const moved = tapes?.find((names) => names.at(-1) === name && names.length > 1)
  if (!moved) return undefined
  const file = join(folder, `${cassetteNameFor(testFile, moved.slice(0, -1), name)}.jsonl`)
  return { tape: moved.join(' > '), file }
}

/** The tapes as the runner names their cassettes; none when a name is one the runner refuses. */
function usableTapes(testFile: string, tapes: string[][]): string[][] | undefined {
  try {
    for (const names of tapes) cassetteNameFor(testFile, names.slice(0, -1), names.at(-1)!)
    return tapes
  } catch {
    return undefined
  }
}

async function findCassetteDirs(dirs: readonly string[], fs: SourceTree): Promise<string[]> {
  const found: string[] = []
  const walk = async (dir: string): Promise<void> => {
    for (const entry of await sortedEntries(dir, fs)) {
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

async function sortedEntries(dir: string, fs: SourceTree) {
  const entries = await fs.readdir(dir, { withFileTypes: true }).catch(() => [])
  return entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
}
