import { createHash } from 'node:crypto'
import { existsSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

/**
 * Where agent-tape keeps files of a project that are no one's to commit (diverged runs, views):
 * `node_modules/.cache/agent-tape` as other tools do, which every project's `.gitignore` already
 * leaves out; a folder of the system's temp folder, named after the project, when the project has
 * no `node_modules` (Yarn Plug'n'Play).
 */
export function cacheDirFor(root: string): string {
  if (existsSync(join(root, 'node_modules'))) return join(root, 'node_modules', '.cache', 'agent-tape')
  const id = createHash('sha256').update(root).digest('hex').slice(0, 12)
  return join(tmpdir(), `agent-tape-${id}`)
}
