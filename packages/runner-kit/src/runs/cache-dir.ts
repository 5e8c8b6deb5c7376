import { createHash } from 'node:crypto'
import { existsSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'

/** Names the cache folder instead, relative to the project root (a CI cache, a read-only node_modules). */
export const CACHE_DIR_ENV = 'AGENT_TAPE_CACHE_DIR'

/**
 * Where agent-tape keeps files of a project that are no one's to commit (diverged runs, views):
 * `node_modules/.cache/agent-tape` as other tools do, which every project's `.gitignore` already
 * leaves out; a folder of the system's temp folder, named after the project, when the project has
 * no `node_modules` (Yarn Plug'n'Play); the folder `AGENT_TAPE_CACHE_DIR` names when it is set.
 */
export function cacheDirFor(root: string, env: Record<string, string | undefined> = process.env): string {
  const named = env[CACHE_DIR_ENV]
  if (named) return resolve(root, named)
  if (existsSync(join(root, 'node_modules'))) return join(root, 'node_modules', '.cache', 'agent-tape')
  const id = createHash('sha256').update(root).digest('hex').slice(0, 12)
  return join(tmpdir(), `agent-tape-${id}`)
}
