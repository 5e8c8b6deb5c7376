import { cassetteFolderFor, DEFAULT_CASSETTE_DIR } from './cassette-path.js'

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

/** A test file the runner collected completely, with every tape name it defines (skipped or not). */
export interface CollectedTestFile {
  testFile: string
  tapeNames: readonly string[]
}

/**
 * Cassettes that no test uses any more, beside the collected test files: a cassette whose
 * tape name no test of its file defines, and the cassettes of a test file that no longer
 * exists. Only pass files that were collected without error, or every cassette of a file
 * that failed to load would look obsolete.
 */
export async function findObsoleteCassettes(
  files: readonly CollectedTestFile[],
  listing: CassetteListing,
  cassetteDir = DEFAULT_CASSETTE_DIR,
): Promise<string[]> {
  const obsolete = new Set<string>()
  const folders = new Map<string, string>()
  for (const { testFile, tapeNames } of files) {
    const folder = cassetteFolderFor(testFile, cassetteDir)
    folders.set(folder, testFile)
    const names = new Set(tapeNames)
    for (const path of await listCassettes(listing, folder)) {
      const name = path.slice(folder.length + 1, -'.jsonl'.length)
      if (!names.has(name)) obsolete.add(path)
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

async function listCassettes(listing: CassetteListing, folder: string): Promise<string[]> {
  return (await listing.list(folder))
    .filter((e) => !e.isDirectory && e.name.endsWith('.jsonl'))
    .map((e) => `${folder}/${e.name}`)
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
