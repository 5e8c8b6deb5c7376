import { spawnSync } from 'node:child_process'
import { existsSync } from 'node:fs'
import { fileURLToPath } from 'node:url'

/** The built bin, run as `node …/bin.js` as a user's shell would run `agent-tape`. */
export const BIN = fileURLToPath(new URL('../../../packages/cli/dist/esm/bin.js', import.meta.url))

export interface BinResult {
  code: number | null
  stdout: string
  stderr: string
}

/**
 * Runs the built `agent-tape` bin in `cwd` with a clean environment (no CI, colour or secret
 * variables inherited from the test runner), plus `env`.
 */
export function runBin(args: readonly string[], cwd: string, env: Record<string, string> = {}): BinResult {
  if (!existsSync(BIN)) throw new Error(`${BIN} is missing: build the packages first (pnpm run build)`)
  const result = spawnSync(process.execPath, [BIN, ...args], {
    cwd,
    env: { PATH: process.env.PATH ?? '', ...env },
    encoding: 'utf8',
  })
  return { code: result.status, stdout: result.stdout, stderr: result.stderr }
}

/** Masks what differs between two recordings of the same run: wall-clock times, dates and the Node version. */
export function maskRun(text: string): string {
  return (
    text
      .replace(/\b\d+ ms\b/g, '<n> ms')
      .replace(/\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z/g, '<time>')
      .replace(/node v\d+\.\d+\.\d+ \(\w+\)/g, 'node <version>')
      // Env hashes are salted per cassette, so they differ on every recording.
      .replace(/sha256:[0-9a-f]{16}\b/g, 'sha256:<hash>')
  )
}
