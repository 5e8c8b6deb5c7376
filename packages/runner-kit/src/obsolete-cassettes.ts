import { cassetteFolderFor, cassetteNameFor, DEFAULT_CASSETTE_DIR } from './cassette-path.js'

/** The switch, given after `--` as the update switch is, that deletes obsolete cassettes. */
export const PRUNE_FLAG = '--prune-cassettes'

/** The switch, given after `--` as the update switch is, that fails a run which finds obsolete cassettes. */
export const FAIL_ON_OBSOLETE_FLAG = '--fail-on-obsolete'

/** What obsolete-cassette discovery needs from the file system (paths relative to the root). */
export interface CassetteListing {
  /** Entries of a directory, or `[]` when it does not exist. */
  list(dir: string): Promise<{ name: string; isDirectory: boolean }[]>
  exists(path: string): Promise<boolean>
}

/**
 * A test file the runner collected completely, with every tape it defines (skipped or not), as
 * the names from its outermost `describe` to the tape name.
 */
export interface CollectedTestFile {
  testFile: string
  tapes: readonly (readonly string[])[]
}

/**
 * Cassettes that no test uses any more, beside the collected test files: a cassette that no
 * tape of its file names (by describe path and tape name), and the cassettes of a test file that
 * no longer exists. A cassette at a tape's former path (its name alone, see `legacy-cassette.ts`)
 * is in use while the tape reads it: until the cassette at its describe path exists. Only pass
 * files that were collected without error, or every cassette of a file that failed to load
 * would look obsolete.
 */
export async function findObsoleteCassettes(
  files: readonly CollectedTestFile[],
  listing: CassetteListing,
  cassetteDir = DEFAULT_CASSETTE_DIR,
): Promise<string[]> {
  const obsolete = new Set<string>()
  const folders = new Map<string, string>()
  for (const { testFile, tapes } of files) {
    const folder = cassetteFolderFor(testFile, cassetteDir)
    folders.set(folder, testFile)
    const used = await usedCassettes(testFile, folder, tapes, listing)
    for (const path of await listCassettes(listing, folder)) {
      if (!used.has(path.slice(folder.length + 1, -'.jsonl'.length))) obsolete.add(path)
    }
  }
  const parents = new Set([...folders.keys()].map((folder) => folder.slice(0, folder.lastIndexOf('/'))))
  for (const parent of parents) {
    for (const entry of await listing.list(parent)) {
      const folder = `${parent}/${entry.name}`
      if (!entry.isDirectory || folders.has(folder)) continue
      const testFile = testFileOf(parent, entry.name, cassetteDir)
      if (testFile === undefined || (await listing.exists(testFile))) continue
      for (const path of await listCassettes(listing, folder)) obsolete.add(path)
    }
  }
  return [...obsolete].sort()
}

/** The cassette names (relative to the file's folder, without `.jsonl`) the tapes of a file use. */
async function usedCassettes(
  testFile: string,
  folder: string,
  tapes: readonly (readonly string[])[],
  listing: CassetteListing,
): Promise<Set<string>> {
  const used = new Set<string>()
  const counts = new Map<string, number>()
  for (const names of tapes) counts.set(names.at(-1)!, (counts.get(names.at(-1)!) ?? 0) + 1)
  for (const names of tapes) {
    const name = names.at(-1)!
    const cassette = cassetteNameFor(testFile, names.slice(0, -1), name)
    used.add(cassette)
    if (
      cassette !== name &&
      counts.get(name) === 1 &&
      !(await listing.exists(`${folder}/${cassette}.jsonl`))
    ) {
      used.add(name)
    }
  }
  return used
}

/** The cassettes in `folder` and in the folders of its describe blocks, at any depth. */
export async function listCassettes(listing: CassetteListing, folder: string): Promise<string[]> {
  const found: string[] = []
  for (const entry of await listing.list(folder)) {
    const path = `${folder}/${entry.name}`
    if (entry.isDirectory) found.push(...(await listCassettes(listing, path)))
    else if (entry.name.endsWith('.jsonl')) found.push(path)
  }
  return found
}

/** The test file whose cassettes `<parent>/<name>` holds: the inverse of {@link cassetteFolderFor}. */
function testFileOf(parent: string, name: string, cassetteDir: string): string | undefined {
  const segments = cassetteDir
    .replace(/\\/g, '/')
    .split('/')
    .filter((s) => s !== '' && s !== '.')
  if (segments.length === 0 || segments.includes('..')) return undefined
  const suffix = segments.join('/')
  if (parent === suffix) return name
  if (!parent.endsWith(`/${suffix}`)) return undefined
  return `${parent.slice(0, -suffix.length - 1)}/${name}`
}
