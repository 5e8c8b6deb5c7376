import { execFile } from 'node:child_process'
import { createHash } from 'node:crypto'
import { promisify } from 'node:util'
import type { HarnessIdentity, HarnessProvider } from '../harness.js'

const run = promisify(execFile)

/**
 * Reads the harness identity from git: the HEAD commit, a fingerprint of the configured
 * paths (their HEAD trees plus any uncommitted changes under them) and a dirty flag. Outside
 * a git checkout, or without git installed, it says so instead of failing.
 */
export function createGitHarness(cwd = process.cwd()): HarnessProvider {
  const git = async (args: string[]) => (await run('git', args, { cwd, maxBuffer: 64 * 1024 * 1024 })).stdout
  return {
    async identify(paths): Promise<HarnessIdentity> {
      let commit: string
      try {
        commit = (await git(['rev-parse', 'HEAD'])).trim()
      } catch (error) {
        const message = (error as { stderr?: string }).stderr ?? String(error)
        if (/not a git repository/i.test(message))
          return { git: false, reason: `${cwd} is not inside a git checkout` }
        if ((error as NodeJS.ErrnoException).code === 'ENOENT')
          return { git: false, reason: 'git is not installed' }
        return { git: false, reason: `git could not read HEAD (${message.trim().split('\n')[0]})` }
      }
      const sorted = [...paths].sort()
      if (sorted.length === 0) return { git: true, commit, paths: [], tree: null, dirty: false }
      const hash = createHash('sha256')
      for (const path of sorted) {
        const tree = await git(['rev-parse', `HEAD:./${path.replace(/^\.\//, '')}`]).catch(() => 'absent')
        hash.update(`${path}\0${tree.trim()}\0`)
      }
      const diff = await git(['diff', 'HEAD', '--no-color', '--', ...sorted])
      const untracked = await git(['ls-files', '--others', '--exclude-standard', '--', ...sorted])
      hash.update(diff).update('\0').update(untracked)
      const dirty = diff.length > 0 || untracked.length > 0
      return { git: true, commit, paths: sorted, tree: hash.digest('hex').slice(0, 16), dirty }
    },
  }
}
