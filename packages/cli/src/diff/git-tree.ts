import { execFile } from 'node:child_process'
import { existsSync } from 'node:fs'
import { readdir, readFile, stat } from 'node:fs/promises'
import { join, relative, sep } from 'node:path'
import { toPosix } from '@agent-tape/runner-kit'
import { usageError } from '../args.js'
import type { SourceTree } from '../prune/find-obsolete.js'

/** The files of a commit, or of the working tree, as `diff --base` reads them. */
export interface GitTree {
  /** The ref as given (`origin/main`), or `undefined` for the working tree. */
  ref?: string
  /** The commit it names (40 hex digits); none for the working tree. */
  commit?: string
  /** Paths relative to the repository's root, with `/`. */
  files: readonly string[]
  read(path: string): Promise<string>
  /** The tree as the obsolete-cassette reading of `prune` walks it (absolute paths under the root). */
  source: SourceTree
}

const COMMAND = 'agent-tape diff'
/** The largest cassette read from git: well past any recording a test makes. */
const MAX_BUFFER = 256 * 1024 * 1024

/** Runs git in `cwd`; rejects with git's own message. */
export function git(args: readonly string[], cwd: string): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile('git', args, { cwd, maxBuffer: MAX_BUFFER, encoding: 'utf8' }, (error, stdout, stderr) => {
      if (!error) resolve(stdout)
      else {
        const code = (error as NodeJS.ErrnoException).code
        const why =
          code === 'ENOENT' ? 'git is not installed (or not on PATH)' : stderr.trim() || error.message
        reject(new Error(why))
      }
    })
  })
}

/** The top of the git checkout `cwd` is in; a usage error outside one. */
export async function gitRoot(cwd: string): Promise<string> {
  try {
    return (await git(['rev-parse', '--show-toplevel'], cwd)).trim()
  } catch (error) {
    throw usageError(
      COMMAND,
      `--base compares two commits of a git repository, and ${cwd} is not in one (git: ${(error as Error).message})`,
      'Run it inside the repository, or compare two cassette files: agent-tape diff <a> <b>',
    )
  }
}

/** The files of the commit `ref` names; a usage error when it names none. */
export async function openCommitTree(root: string, ref: string, option: string): Promise<GitTree> {
  let commit: string
  try {
    commit = (
      await git(['rev-parse', '--verify', '--quiet', '--end-of-options', `${ref}^{commit}`], root)
    ).trim()
  } catch {
    throw usageError(
      COMMAND,
      `${option} ${ref} names no commit of the repository at ${root}`,
      'Name a branch, tag or commit that exists here; in a shallow clone, fetch the base first (actions/checkout with fetch-depth: 0)',
    )
  }
  const files = (await git(['ls-tree', '-r', '-z', '--name-only', commit], root)).split('\0').filter(Boolean)
  // cat-file, not show: a textconv driver (agent-tape setup-git's) never rewrites what it reads.
  const read = (path: string) => git(['cat-file', 'blob', `${commit}:${path}`], root)
  return { ref, commit, files, read, source: treeOf(root, files, read) }
}

/** The working tree: tracked files still there and untracked ones git does not ignore. */
export async function openWorkingTree(root: string): Promise<GitTree> {
  const listed = (await git(['ls-files', '-z', '--cached', '--others', '--exclude-standard'], root))
    .split('\0')
    .filter(Boolean)
  const files = [...new Set(listed)].filter((path) => existsSync(join(root, path))).sort()
  const read = (path: string) => readFile(join(root, path), 'utf8')
  return { files, read, source: { readdir, stat, readFile: (path) => readFile(path, 'utf8') } }
}

/**
 * The paths whose content differs between the commit `base` and `head` (a commit, or the working
 * tree with untracked files), by git's own comparison: only these are read and compared, so a
 * pull request that touches three cassettes of five hundred reads three pairs.
 */
export async function changedPaths(root: string, base: GitTree, head: GitTree): Promise<Set<string>> {
  const list = (text: string) => text.split('\0').filter(Boolean)
  const diff = ['diff', '--name-only', '-z', '--no-renames', '--no-ext-diff', '--no-textconv', base.commit!]
  if (head.commit) return new Set(list(await git([...diff, head.commit], root)))
  const [tracked, untracked] = await Promise.all([
    git(diff, root),
    git(['ls-files', '-z', '--others', '--exclude-standard'], root),
  ])
  return new Set([...list(tracked), ...list(untracked)])
}

/** A listed tree read as the file system would be: folders are the prefixes of its files. */
function treeOf(root: string, files: readonly string[], read: (path: string) => Promise<string>): SourceTree {
  const entries = new Map<string, Map<string, boolean>>()
  for (const file of files) {
    const parts = file.split('/')
    for (let i = 0; i < parts.length; i++) {
      const dir = parts.slice(0, i).join('/')
      const names = entries.get(dir) ?? new Map<string, boolean>()
      names.set(parts[i]!, i < parts.length - 1 || names.get(parts[i]!) === true)
      entries.set(dir, names)
    }
  }
  const fileSet = new Set(files)
  const inside = (path: string) => {
    const rel = relative(root, path)
    if (rel.startsWith(`..${sep}`) || rel === '..') return undefined
    return toPosix(rel)
  }
  const missing = (path: string) =>
    Object.assign(new Error(`ENOENT: no such file or directory, ${path}`), { code: 'ENOENT' })
  return {
    async readdir(path) {
      const names = entries.get(inside(path) ?? '\0')
      if (!names) throw missing(path)
      return [...names].map(([name, isDir]) => ({ name, isDirectory: () => isDir }))
    },
    async stat(path) {
      const rel = inside(path)
      if (rel === undefined || (!fileSet.has(rel) && !entries.has(rel))) throw missing(path)
      return { isFile: () => fileSet.has(rel) }
    },
    async readFile(path) {
      const rel = inside(path)
      if (rel === undefined || !fileSet.has(rel)) throw missing(path)
      return read(rel)
    },
  }
}
