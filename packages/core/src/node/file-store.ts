import { randomBytes } from 'node:crypto'
import { mkdir, open, readFile, rename, rm } from 'node:fs/promises'
import { basename, dirname, join } from 'node:path'
import type { CassetteStore } from '../cassette-store.js'

/** Prefix of the temporary files a write goes through; a crash can leave one behind, never a half cassette. */
export const TEMP_PREFIX = '.tape-tmp-'

/**
 * A cassette store on the local file system. Writes go to a temporary file in the same
 * directory, are flushed to disk, then renamed over the cassette: a reader (or a crash at any
 * moment) sees the previous cassette or the new one, never a mix.
 *
 * @param root relative cassette paths are resolved against it (default: the working directory)
 */
export function createFileStore(root = process.cwd()): CassetteStore {
  const resolve = (path: string) =>
    path.startsWith('/') || /^[A-Za-z]:[\\/]/.test(path) ? path : join(root, path)
  return {
    async read(path) {
      try {
        return await readFile(resolve(path), 'utf8')
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null
        throw error
      }
    },
    async write(path, text) {
      await writeFileAtomic(resolve(path), text)
    },
  }
}

export async function writeFileAtomic(file: string, text: string): Promise<void> {
  const dir = dirname(file)
  await mkdir(dir, { recursive: true })
  const temp = join(dir, `${TEMP_PREFIX}${basename(file)}-${process.pid}-${randomBytes(4).toString('hex')}`)
  const handle = await open(temp, 'w')
  try {
    await handle.writeFile(text, 'utf8')
    await handle.sync()
  } catch (error) {
    await handle.close()
    await rm(temp, { force: true })
    throw error
  }
  await handle.close()
  try {
    await rename(temp, file)
  } catch (error) {
    await rm(temp, { force: true })
    throw error
  }
}
