import type { CassetteListing } from './obsolete-cassettes.js'

/** The two calls of `node:fs/promises` a listing makes, passed in so core stays off the file system. */
export interface DirectoryReader {
  readdir(path: string, options: { withFileTypes: true }): Promise<{ name: string; isDirectory(): boolean }[]>
  stat(path: string): Promise<unknown>
}

/**
 * The cassettes below `root` as obsolete-cassette discovery reads them; a folder that cannot
 * be read lists as empty.
 *
 * @example
 * import { readdir, stat } from 'node:fs/promises'
 * const listing = createCassetteListing(root, { readdir, stat })
 */
export function createCassetteListing(root: string, fs: DirectoryReader): CassetteListing {
  const at = (path: string) => `${root}/${path}`
  return {
    async list(dir) {
      try {
        const entries = await fs.readdir(at(dir), { withFileTypes: true })
        return entries.map((e) => ({ name: e.name, isDirectory: e.isDirectory() }))
      } catch {
        return []
      }
    },
    async exists(path) {
      return fs.stat(at(path)).then(
        () => true,
        () => false,
      )
    },
  }
}
