import { execFile } from 'node:child_process'
import { access, readFile, realpath, writeFile } from 'node:fs/promises'
import { dirname, join, relative, resolve } from 'node:path'
import { promisify } from 'node:util'
import { AgentTapeError } from '@agent-tape/core'
import { quoteShell, toPosix } from '@agent-tape/runner-kit'
import { headerKind } from '../cassette-files.js'

const run = promisify(execFile)

/** The name of the diff driver: `diff=agent-tape` in `.gitattributes`, `diff.agent-tape.*` in the config. */
export const DRIVER = 'agent-tape'

/** What the setup writes, and what it found already there. */
export interface GitSetup {
  /** The top of the checkout. */
  top: string
  /** The `.gitattributes` lines added (none: all were there). */
  attributes: string[]
  /** The config entries set, with their values (none: all had them). */
  config: [string, string][]
}

export interface GitSetupOptions {
  /** The folders tests keep their cassettes in (`__cassettes__`). */
  cassetteDirs: readonly string[]
  /** The textconv command; by default the project's own bin, else `npx --no-install agent-tape`. */
  command?: string
}

/**
 * Sets up the repository that `cwd` is in to read cassettes as transcripts in `git diff`,
 * `git log -p` and `git show`: a line in the top `.gitattributes` for each place cassettes live
 * (each cassette folder, at any depth; each other folder where git has a cassette, recorded by
 * `agent-tape record` or captured in a server) naming the `agent-tape` diff driver, and the
 * driver in the checkout's own config (its textconv command, cached by git, and hunk headers
 * that name the step). Writes only what is missing, so a second run changes nothing.
 */
export async function setUpGit(cwd: string, options: GitSetupOptions): Promise<GitSetup> {
  const top = await checkoutTop(cwd)
  const git = (args: readonly string[]) => run('git', args, { cwd: top, maxBuffer: 64 * 1024 * 1024 })
  const patterns = [
    ...options.cassetteDirs.map((dir) => quotePattern(`**/${escapeGlob(dir)}/**/*.jsonl`)),
    ...(await otherCassettePlaces(top, options.cassetteDirs, git)),
  ]
  const attributes = await addAttributes(top, patterns)
  const wanted: [string, string][] = [
    [`diff.${DRIVER}.textconv`, options.command ?? (await textconvCommand(cwd, top))],
    [`diff.${DRIVER}.cachetextconv`, 'true'],
    // Hunk headers name the decision a change is in: `@@ -40,7 +40,7 @@ step 3  tool "search"`.
    [`diff.${DRIVER}.xfuncname`, '^step .*$'],
  ]
  const config: [string, string][] = []
  for (const [name, value] of wanted) {
    const current = await git(['config', '--local', '--get', name]).then(
      ({ stdout }) => stdout.replace(/\n$/, ''),
      () => undefined,
    )
    if (current === value) continue
    await git(['config', '--local', name, value])
    config.push([name, value])
  }
  return { top, attributes, config }
}

async function checkoutTop(cwd: string): Promise<string> {
  try {
    const { stdout } = await run('git', ['rev-parse', '--show-toplevel'], { cwd })
    const top = stdout.trim()
    if (top !== '') return top
  } catch (error) {
    const why = String((error as { stderr?: unknown }).stderr ?? (error as Error).message).trim()
    throw notACheckout(cwd, why.split('\n')[0] || 'git rev-parse --show-toplevel failed')
  }
  throw notACheckout(cwd, 'it is in the .git folder or a bare repository, which has no working tree')
}

function notACheckout(cwd: string, why: string): AgentTapeError {
  return new AgentTapeError('ERR_TAPE_USAGE', {
    what: `agent-tape setup-git cannot set up ${cwd}`,
    why: `it is not in a git checkout (${why})`,
    fix: 'Run it inside the git checkout whose cassettes git diff should read (git init makes one); nothing was written',
  })
}

/**
 * The folders, outside the cassette folders, where git has a cassette (one that a `record`
 * wrote to `runs/`, a capture directory): a pattern for each, its `.jsonl` files; a cassette at
 * the top by its own name.
 */
async function otherCassettePlaces(
  top: string,
  cassetteDirs: readonly string[],
  git: (args: readonly string[]) => Promise<{ stdout: string }>,
): Promise<string[]> {
  const { stdout } = await git([
    'ls-files',
    '-z',
    '--cached',
    '--others',
    '--exclude-standard',
    '--',
    '*.jsonl',
  ])
  const places = new Set<string>()
  for (const file of stdout.split('\0').filter(Boolean)) {
    if (cassetteDirs.some((dir) => `/${file}`.includes(`/${dir}/`))) continue
    if ((await headerKind(join(top, file)).catch(() => undefined)) === undefined) continue
    const folder = dirname(file)
    places.add(quotePattern(folder === '.' ? `/${escapeGlob(file)}` : `${escapeGlob(folder)}/*.jsonl`))
  }
  return [...places].sort()
}

/** A path as a `.gitattributes` pattern matches it literally: its glob characters escaped. */
function escapeGlob(path: string): string {
  return path.replace(/[\\*?[\]!]/g, (c) => `\\${c}`)
}

/** A pattern as a `.gitattributes` line holds it: quoted, C-style, when it has spaces or quotes. */
function quotePattern(pattern: string): string {
  return /[\s"]/.test(pattern) ? `"${pattern.replace(/["\\]/g, (c) => `\\${c}`)}"` : pattern
}

/**
 * Appends to the top `.gitattributes` a line for each pattern no line gives the driver already
 * (`<pattern> diff=agent-tape`, whatever other attributes it sets); returns the lines added.
 */
async function addAttributes(top: string, patterns: readonly string[]): Promise<string[]> {
  const file = join(top, '.gitattributes')
  const text = await readFile(file, 'utf8').catch((error: NodeJS.ErrnoException) => {
    if (error.code === 'ENOENT') return ''
    throw error
  })
  const driven = new Set<string>()
  for (const line of text.split(/\r?\n/)) {
    // A pattern, quoted when it holds spaces, then its attributes.
    const pattern = /^\s*("(?:[^"\\]|\\.)*"|\S+)(.*)$/.exec(line)
    if (pattern && pattern[2]!.split(/\s+/).includes(`diff=${DRIVER}`)) driven.add(pattern[1]!)
  }
  const missing = patterns
    .filter((pattern) => !driven.has(pattern))
    .map((pattern) => `${pattern} diff=${DRIVER}`)
  if (missing.length === 0) return []
  const comment = '# Cassettes read as transcripts by git diff (npx agent-tape setup-git)'
  const block = [...(text.includes(comment) ? [] : [comment]), ...missing]
  const separator = text === '' || text.endsWith('\n') ? '' : '\n'
  await writeFile(file, `${text}${separator}${block.join('\n')}\n`)
  return missing
}

/**
 * The command git runs, from the top of the checkout: the project's own bin when there is one
 * between `cwd` and the top (no package manager to resolve it on every diff), else
 * `npx --no-install agent-tape`.
 */
async function textconvCommand(cwd: string, top: string): Promise<string> {
  // git names the top by its real path: so is the folder walked up from.
  for (let dir = await realpath(resolve(cwd)); ; dir = dirname(dir)) {
    const bin = join(dir, 'node_modules', '.bin', 'agent-tape')
    if (
      await access(bin).then(
        () => true,
        () => false,
      )
    )
      return `${quoteShell(toPosix(relative(top, bin)))} textconv`
    if (dir === top || dirname(dir) === dir) break
  }
  return 'npx --no-install agent-tape textconv'
}
