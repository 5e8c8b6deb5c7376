import { isAbsolute, join, relative } from 'node:path'
import {
  type Cassette,
  type CassetteStore,
  findCassetteSecrets,
  redactCassetteForReading,
  type SecretAllowList,
  SecretScanner,
  secretEnvValues,
  serializeCassette,
} from '@agent-tape/core/internal'
import { toPosix } from '../cassette-path.js'
import { binCommand, CLI_BIN, quoteShell } from '../rerecord-command.js'
import { cacheDirFor } from './cache-dir.js'

/**
 * Where the diverged run of a cassette is kept, relative to the project root when inside it:
 * the cassette's own path under the cache folder's `runs/`, so each test has one, replaced by
 * its next divergence (`node_modules/.cache/agent-tape/runs/test/__cassettes__/a.test.ts/x.jsonl`).
 */
export function runPathFor(
  root: string,
  cassettePath: string,
  env: Record<string, string | undefined> = process.env,
): string {
  const file = join(cacheDirFor(root, env), 'runs', cassettePath)
  const rel = relative(root, file)
  return toPosix(isAbsolute(rel) || rel.startsWith('..') ? file : rel)
}

/**
 * The command that opens the divergence view of a test, run from the project root with the
 * project's package runner, as the re-record command is, never fetching (`binCommand`).
 *
 * @example
 * buildViewCommand({ exec: 'npx', cassettePath: 'test/__cassettes__/a.test.ts/x.jsonl', runPath })
 * // 'npx --no-install agent-tape view test/__cassettes__/a.test.ts/x.jsonl --run node_modules/.cache/agent-tape/runs/…'
 */
export function buildViewCommand(input: { exec: string; cassettePath: string; runPath: string }): string {
  return binCommand(
    CLI_BIN,
    `view ${quoteShell(input.cassettePath)} --run ${quoteShell(input.runPath)}`,
    input.exec,
  )
}

/** Why a diverged run was not kept; nothing when it was. */
export type KeptRun = { kept: true } | { kept: false; why: string }

/**
 * Keeps the run of a diverged replay for the divergence view, through the same secret handling
 * as a cassette: every secret the scanner finds (in strings, in the text a stream reassembles
 * to) is redacted, and a run in which the scan still finds one (in an encoded body) is not
 * written at all.
 */
export async function keepDivergedRun(
  run: Cassette,
  path: string,
  store: CassetteStore,
  secrets: { env: Record<string, string | undefined>; allow: SecretAllowList },
): Promise<KeptRun> {
  const scanner = new SecretScanner(secretEnvValues(secrets.env), secrets.allow)
  const redacted = redactCassetteForReading(run, scanner)
  const findings = findCassetteSecrets(redacted, scanner)
  if (findings.length > 0) {
    const first = findings[0]!
    return {
      kept: false,
      why: `${first.where} ${first.path} holds ${first.label} that cannot be redacted, so the run was not kept for the view`,
    }
  }
  try {
    await store.write(path, serializeCassette(redacted))
    return { kept: true }
  } catch (error) {
    return { kept: false, why: `the run could not be written to ${path}: ${(error as Error).message}` }
  }
}
