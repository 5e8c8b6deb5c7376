import { open, readdir, readFile, stat } from 'node:fs/promises'
import { join, relative, resolve, sep } from 'node:path'
import {
  type Cassette,
  parseCassette,
  redactCassetteForReading,
  SecretScanner,
  secretEnvValues,
} from '@agent-tape/core/internal'
import { TEMP_PREFIX } from '@agent-tape/core/node'
import { DEFAULT_CASSETTE_DIR, toPosix } from '@agent-tape/runner-kit'
import { usageError } from './args.js'

/** Folders never searched for cassettes. */
export const SKIPPED_DIRS = new Set(['node_modules', '.git'])

/** A path as printed: relative to the working directory when inside it, with `/` separators. */
export function displayPath(path: string, cwd: string): string {
  const rel = relative(cwd, path)
  return toPosix(rel === '' ? '.' : rel.startsWith(`..${sep}`) || rel === '..' ? path : rel)
}

/**
 * Reads and validates one cassette named on the command line, to be shown: with every secret
 * it holds (in a string, or split across a stream's events) redacted, whatever wrote it. A
 * missing file or a folder is a usage error; a damaged file throws core's
 * `CassetteCorruptError`, which names file and line.
 */
export async function loadCassette(
  command: string,
  path: string,
  io: { cwd: string; env: Record<string, string | undefined> },
): Promise<Cassette> {
  const { cwd } = io
  const file = resolve(cwd, path)
  const info = await stat(file).catch(() => undefined)
  if (!info) throw usageError(command, `${path} does not exist`, 'Pass the path of a .jsonl cassette')
  if (info.isDirectory()) {
    throw usageError(command, `${path} is a folder, not a cassette`, 'Pass the path of a .jsonl cassette')
  }
  const cassette = parseCassette(await readFile(file, 'utf8'), displayPath(file, cwd))
  return redactCassetteForReading(cassette, new SecretScanner(secretEnvValues(io.env)))
}

export interface FoundFiles {
  /** Absolute paths of cassettes, sorted. */
  cassettes: string[]
  /** Temporary files left by an interrupted write (`.tape-tmp-*`). */
  leftovers: string[]
}

/**
 * Every cassette under `paths`: a `.jsonl` file named directly, any `.jsonl` inside a
 * `__cassettes__` folder, and any other `.jsonl` whose first line is a cassette header (cassettes
 * written to a custom path by the core API). `node_modules` and `.git` are skipped, and so are
 * runs captured in a server (`@agent-tape/capture`) that have not been promoted into a test,
 * unless their folder (or the file) is named: a capture directory is not a test's.
 */
export async function findCassettes(
  command: string,
  paths: readonly string[],
  cwd: string,
): Promise<FoundFiles> {
  const found: FoundFiles = { cassettes: [], leftovers: [] }
  for (const path of paths) {
    const full = resolve(cwd, path)
    const info = await stat(full).catch(() => undefined)
    if (!info) throw usageError(command, `${path} does not exist`)
    if (info.isDirectory()) await walk(full, false, found, full)
    else found.cassettes.push(full)
  }
  found.cassettes = [...new Set(found.cassettes)].sort()
  found.leftovers = [...new Set(found.leftovers)].sort()
  return found
}

async function walk(dir: string, inCassetteDir: boolean, found: FoundFiles, named: string): Promise<void> {
  const entries = await readdir(dir, { withFileTypes: true })
  entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
  for (const entry of entries) {
    const full = join(dir, entry.name)
    if (entry.isDirectory()) {
      if (!SKIPPED_DIRS.has(entry.name))
        await walk(full, inCassetteDir || entry.name === DEFAULT_CASSETTE_DIR, found, named)
    } else if (entry.isFile()) {
      if (entry.name.startsWith(TEMP_PREFIX)) {
        if (inCassetteDir) found.leftovers.push(full)
      } else if (entry.name.endsWith('.jsonl')) {
        const kind = inCassetteDir ? 'cassette' : await headerKind(full)
        if (kind === 'cassette' || (kind === 'captured' && dir === named)) found.cassettes.push(full)
      }
    }
  }
}

/** Whether a file starts with a cassette header, and whether that header is a captured run's. */
export async function headerKind(file: string): Promise<'cassette' | 'captured' | undefined> {
  const handle = await open(file, 'r')
  try {
    const { buffer, bytesRead } = await handle.read(Buffer.alloc(HEAD_BYTES), 0, HEAD_BYTES, 0)
    const head = buffer.subarray(0, bytesRead).toString('utf8')
    if (!/^\{\s*"agentTape"\s*:/.test(head)) return undefined
    return capturedSource(head) ? 'captured' : 'cassette'
  } finally {
    await handle.close()
  }
}

// A header is short but for a captured run's input and outcome, which come last.
const HEAD_BYTES = 64 * 1024

function capturedSource(head: string): boolean {
  const end = head.indexOf('\n')
  if (end !== -1) {
    try {
      const header = JSON.parse(head.slice(0, end)) as { source?: { kind?: unknown } }
      return header.source?.kind === 'capture'
    } catch {
      // A damaged header: verify reports it.
      return false
    }
  }
  return /"source":\{"kind":"capture"/.test(head)
}
