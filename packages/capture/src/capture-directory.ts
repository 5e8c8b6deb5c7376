import { constants } from 'node:fs'
import { access, readdir, rm } from 'node:fs/promises'
import { join, resolve } from 'node:path'
import { makeDirectory, writeFileAtomic } from '@agent-tape/core/node'
import { isRunFileName, runStartOf } from './run-file.js'

export interface Retention {
  maxFiles: number
  maxAgeMs: number | undefined
}

/**
 * The directory captured runs are written to: one file per run, written atomically (a reader,
 * or a crash, never sees half a file), then the oldest removed beyond `maxFiles` and
 * `maxAgeMs`. Only files named as capture names them are ever removed, so a directory shared
 * with anything else loses nothing else.
 */
export class CaptureDirectory {
  readonly path: string
  /** One pass of retention at a time; a write during a pass asks for one more after it. */
  private pruning: Promise<void> | undefined
  private prunePending = false

  constructor(
    dir: string,
    private readonly retention: Retention,
    private readonly onRemoved: (count: number) => void,
  ) {
    this.path = resolve(dir)
  }

  /** Where a run's file is, as the trace span and the logs name it. */
  fileOf(name: string): string {
    return join(this.path, name)
  }

  /** Throws the file system's error (`EACCES`, `ENOSPC`, …) when the file cannot be written. */
  async write(name: string, text: string): Promise<void> {
    await writeFileAtomic(this.fileOf(name), text)
    this.prune()
  }

  /**
   * Whether the directory can be written, asked once as the capture starts so that a
   * misconfigured volume is said at boot rather than at the first failure. Creates it when missing.
   */
  async probe(): Promise<NodeJS.ErrnoException | undefined> {
    try {
      await makeDirectory(this.path)
      await access(this.path, constants.W_OK)
      return undefined
    } catch (error) {
      return error as NodeJS.ErrnoException
    }
  }

  /** Resolves once no retention pass is running or asked for. */
  async settled(): Promise<void> {
    while (this.pruning) await this.pruning
  }

  private prune(): void {
    if (this.pruning) {
      this.prunePending = true
      return
    }
    this.pruning = this.removeOld()
      .catch(() => {
        // Retention is best effort: a file that cannot be removed now is tried again later.
      })
      .finally(() => {
        this.pruning = undefined
        if (this.prunePending) {
          this.prunePending = false
          this.prune()
        }
      })
  }

  private async removeOld(): Promise<void> {
    const { maxFiles, maxAgeMs } = this.retention
    // The names start with the run's start time, so sorting them sorts the runs.
    const names = (await readdir(this.path)).filter(isRunFileName).sort()
    const doomed = new Set(names.slice(0, Math.max(0, names.length - maxFiles)))
    if (maxAgeMs !== undefined) {
      const cutoff = Date.now() - maxAgeMs
      for (const name of names) {
        if (runStartOf(name) >= cutoff) break
        doomed.add(name)
      }
    }
    let removed = 0
    for (const name of doomed) {
      try {
        await rm(this.fileOf(name))
        removed++
      } catch {
        // Gone already (another process sharing the directory), or not ours to remove.
      }
    }
    if (removed > 0) this.onRemoved(removed)
  }
}
