import { execFile } from 'node:child_process'
import { createHash } from 'node:crypto'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { promisify } from 'node:util'
import type { HarnessIdentity, HarnessProvider } from '../harness.js'

const run = promisify(execFile)

/**
 * Reads the harness identity from git: the HEAD commit, a fingerprint of the configured paths
 * and a dirty flag. The fingerprint is the git tree of the paths *as they are in the working
 * directory* (staged in a temporary index), so it depends on their content only: the same code
 * gives the same fingerprint whether it is committed or not. Outside a git checkout, or without
 * git installed, it says so instead of failing. A reading is reused for `cacheMs` (default one
 * second) by every provider of the process with the same directory and paths, so a run of many
 * tapes reads git a few times rather than once per test, while a watch-mode re-run after an edit
 * still sees the edit.
 */
export function createGitHarness(cwd = process.cwd(), options: { cacheMs?: number } = {}): HarnessProvider {
  const cacheMs = options.cacheMs ?? 1000
  return {
    identify(paths) {
      const sorted = [...paths].map((p) => p.replace(/^\.\//, '').replace(/\/+$/, '') || '.').sort()
      const key = `${cwd}\0${sorted.join('\0')}`
      const hit = readings.get(key)
      if (hit && Date.now() - hit.at < cacheMs) return hit.identity
      const identity = readIdentity(cwd, sorted)
      readings.set(key, { at: Date.now(), identity })
      return identity
    },
  }
}

const readings = new Map<string, { at: number; identity: Promise<HarnessIdentity> }>()

async function readIdentity(cwd: string, paths: string[]): Promise<HarnessIdentity> {
  const git = async (args: string[], env?: NodeJS.ProcessEnv) =>
    (await run('git', args, { cwd, maxBuffer: 64 * 1024 * 1024, env: { ...process.env, ...env } })).stdout
  let commit: string
  try {
    commit = (await git(['rev-parse', 'HEAD'])).trim()
  } catch (error) {
    const message = (error as { stderr?: string }).stderr ?? String(error)
    if ((error as NodeJS.ErrnoException).code === 'ENOENT')
      return { git: false, reason: 'git is not installed' }
    if (/not a git repository/i.test(message))
      return { git: false, reason: `${cwd} is not inside a git checkout` }
    return { git: false, reason: `git could not read HEAD (${message.trim().split('\n')[0]})` }
  }
  if (paths.length === 0) return { git: true, commit, paths: [], tree: null, dirty: false }
  const dir = await mkdtemp(join(tmpdir(), 'agent-tape-index-'))
  try {
    const env = { GIT_INDEX_FILE: join(dir, 'index') }
    await git(['read-tree', 'HEAD'], env)
    await git(['add', '--all', '--ignore-errors', '--', ...paths], env).catch(() => '')
    const tree = (await git(['write-tree'], env)).trim()
    const hash = createHash('sha256')
    for (const path of paths) {
      const object = await git(['rev-parse', `${tree}:./${path === '.' ? '' : path}`]).catch(() => 'absent')
      hash.update(`${path}\0${object.trim()}\0`)
    }
    const status = await git(['status', '--porcelain', '--', ...paths])
    return {
      git: true,
      commit,
      paths,
      tree: hash.digest('hex').slice(0, 16),
      dirty: status.trim().length > 0,
    }
  } finally {
    await rm(dir, { recursive: true, force: true })
  }
}
