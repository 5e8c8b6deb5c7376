import { readFile } from 'node:fs/promises'
import {
  type Cassette,
  compareHarness,
  decisionLabel,
  type EnvSecret,
  encodingAsRead,
  findCassetteSecrets,
  type HarnessIdentity,
  type HarnessProvider,
  isCassetteCorruptError,
  parseCassette,
  SecretScanner,
} from '@agent-tape/core/internal'
import { framingHeader, implausibleTimes } from '@agent-tape/http/internal'

export type CheckStatus = 'ok' | 'warn' | 'fail'

export interface CassetteCheck {
  path: string
  status: CheckStatus
  decisions?: number
  problems: string[]
  warnings: string[]
}

export interface CheckContext {
  envSecrets: readonly EnvSecret[]
  /** Values that look like secrets but are not (the `allowSecrets` of the tapes). */
  allowSecrets: readonly string[]
  /** The harness of the project a cassette belongs to, and that project's folder. */
  harness: (file: string) => { root: string; provider: HarnessProvider }
  /** Report a harness that differs from the recording as a problem instead of a warning. */
  strict: boolean
  /** Harness identities already read, by project and paths (one git call per set of paths). */
  identities: Map<string, Promise<HarnessIdentity>>
}

/** Validates one cassette file: its format and versions, secrets, and harness freshness. */
export async function checkCassette(
  file: string,
  path: string,
  context: CheckContext,
): Promise<CassetteCheck> {
  const check: CassetteCheck = { path, status: 'ok', problems: [], warnings: [] }
  let cassette: Cassette
  try {
    cassette = parseCassette(await readFile(file, 'utf8'), path)
  } catch (error) {
    if (!isCassetteCorruptError(error)) throw error
    check.problems.push(`line ${error.line}: ${error.reason}`)
    return finish(check)
  }
  check.decisions = cassette.decisions.length
  try {
    check.problems.push(...scanSecrets(cassette, context.envSecrets, context.allowSecrets))
  } catch (error) {
    if (!(error instanceof RangeError)) throw error
    // Nested deeper than the stack allows a walk: it cannot be shown free of secrets.
    check.problems.push(
      'a decision is nested too deeply to scan for secrets (the JavaScript stack overflowed); re-record it, or restore the file from version control',
    )
  }
  // Headers that would break a replay fail it; times no recording gives are flagged.
  for (const d of cassette.decisions) {
    const framing = framingHeader(d.out)
    if (framing) check.problems.push(`decision #${d.seq} (${decisionLabel(d)}, step ${d.step}): ${framing}`)
    const times = implausibleTimes(d)
    if (times.length > 0) {
      const note = `implausible time in decision #${d.seq} (${decisionLabel(d)}, step ${d.step}): ${times.join('; ')}; re-record it, or restore the file from version control`
      ;(context.strict ? check.problems : check.warnings).push(note)
    }
  }
  const note = await checkHarness(file, cassette, context)
  if (note) (context.strict ? check.problems : check.warnings).push(note)
  return finish(check)
}

function finish(check: CassetteCheck): CassetteCheck {
  check.status = check.problems.length > 0 ? 'fail' : check.warnings.length > 0 ? 'warn' : 'ok'
  return check
}

function scanSecrets(
  cassette: Cassette,
  envSecrets: readonly EnvSecret[],
  allow: readonly string[],
): string[] {
  // The patches as read, scanned once each: a long run's inputs are not all rebuilt.
  const scanner = new SecretScanner(envSecrets, allow)
  return findCassetteSecrets(cassette, scanner, encodingAsRead(cassette)).map(
    (f) => `secret in ${f.where} ${f.path}: ${f.label} (${f.preview})`,
  )
}

async function checkHarness(
  file: string,
  cassette: Cassette,
  context: CheckContext,
): Promise<string | undefined> {
  const recorded = cassette.header.harness
  if (!recorded?.git || recorded.paths.length === 0) return undefined
  const { root, provider } = context.harness(file)
  const id = [root, ...recorded.paths].join('\n')
  let current = context.identities.get(id)
  if (!current) {
    current = provider.identify(recorded.paths)
    context.identities.set(id, current)
  }
  const comparison = compareHarness(recorded, await current)
  if (comparison.matches) return undefined
  return `stale harness: ${comparison.note}; re-record it, or check that the recording still describes the code`
}
