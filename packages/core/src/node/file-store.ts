import { randomBytes } from 'node:crypto'
import { open, readdir, readFile, rename, rm, stat } from 'node:fs/promises'
import { basename, dirname, join } from 'node:path'
import type { CassetteStore } from '../cassette-store.js'
import { makeDirectory } from './make-directory.js'

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
  await makeDirectory(dir)
  await removeStaleTemps(dir)
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

const STALE_AFTER_MS = 24 * 60 * 60 * 1000

/**
 * Removes the temporary files that writes killed mid-way left in `dir` (up to a cassette's size
 * each): those of a process that is gone, or older than a day. A write in progress in another
 * process of this machine is left alone. Best effort: a file that cannot be removed stays.
 */
async function removeStaleTemps(dir: string): Promise<void> {
  const names = await readdir(dir).catch(() => [] as string[])
  for (const name of names) {
    if (!name.startsWith(TEMP_PREFIX)) continue
    const pid = Number(/-(\d+)-[0-9a-f]{8}$/.exec(name)?.[1])
    const path = join(dir, name)
    const old = await stat(path).then(
      (s) => Date.now() - s.mtimeMs > STALE_AFTER_MS,
      () => false,
    )
    if (old || (Number.isInteger(pid) && pid !== process.pid && !isAlive(pid))) {
      await rm(path, { force: true }).catch(() => {})
    }
  }
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0)
    return true
  } catch (error) {
    // EPERM: the process exists, it belongs to someone else.
    return (error as NodeJS.ErrnoException).code === 'EPERM'
  }
}
