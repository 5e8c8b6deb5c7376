import { execFile } from 'node:child_process'
import { promisify } from 'node:util'

const run = promisify(execFile)

/**
 * The root of the project a command runs in: the top of its git checkout, or the folder itself
 * outside one. A recorded command's working directory is kept relative to it, so that the
 * cassette replays from any clone.
 */
export async function gitRootOf(cwd: string): Promise<string> {
  try {
    const { stdout } = await run('git', ['rev-parse', '--show-toplevel'], { cwd })
    const root = stdout.trim()
    return root === '' ? cwd : root
  } catch {
    return cwd
  }
}
