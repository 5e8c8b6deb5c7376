import { mkdir, stat } from 'node:fs/promises'
import { dirname } from 'node:path'

/** How many missing folders one call creates at most: deeper than any real path. */
const MAX_DEPTH = 128

/**
 * `mkdir -p`, one folder at a time, with an end: Node's own `mkdir(path, { recursive: true })`
 * never returns for a path under a file system that refuses every new folder with `ENOENT`
 * (`/proc`, `/sys`), the synchronous one included. Resolves once `dir` is a folder; rejects
 * with the file system's error (`ENOENT`, `EACCES`, `ENOTDIR`, `EROFS`) when it cannot be.
 */
export async function makeDirectory(dir: string): Promise<void> {
  const missing: string[] = []
  let current = dir
  for (;;) {
    try {
      await mkdir(current)
      break
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code
      if (code === 'EEXIST') {
        if (!(await stat(current)).isDirectory()) throw error
        break
      }
      const parent = dirname(current)
      if (code !== 'ENOENT' || parent === current || missing.length >= MAX_DEPTH) throw error
      missing.push(current)
      current = parent
    }
  }
  // Each folder once, from the top down; one that still cannot be made is the answer.
  for (const folder of missing.reverse()) {
    try {
      await mkdir(folder)
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST' || !(await stat(folder)).isDirectory())
        throw error
    }
  }
}
