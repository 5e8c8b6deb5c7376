import { spawnSync } from 'node:child_process'
import { existsSync } from 'node:fs'
import { delimiter, dirname } from 'node:path'
import { fileURLToPath } from 'node:url'
import type { CliResult } from './cli.js'

/** The built bin, executable through its `#!/usr/bin/env node` line. */
export const BIN = fileURLToPath(new URL('../../../packages/cli/dist/esm/bin.js', import.meta.url))

/**
 * Runs the built `agent-tape` bin as a child process in `cwd` with a clean environment (no CI,
 * colour or secret variables inherited from the test runner), plus `env`. Only the tests of the
 * bin's own wiring (shebang, exit codes, streams, colour in a pipe) spawn it: the rest call
 * `runCli`, which runs the same `main` in this process.
 */
export function runBin(args: readonly string[], cwd: string, env: Record<string, string> = {}): CliResult {
  if (!existsSync(BIN)) throw new Error(`${BIN} is missing: build the packages first (pnpm run build)`)
  // Executed directly, not as `node bin.js`: the kernel reads the shebang, and `env` finds the
  // node that runs these tests first on PATH.
  const path = [dirname(process.execPath), process.env.PATH ?? ''].join(delimiter)
  const result = spawnSync(BIN, args, {
    cwd,
    env: { PATH: path, ...env },
    encoding: 'utf8',
  })
  if (result.error) throw result.error
  return { code: result.status, stdout: result.stdout, stderr: result.stderr }
}
