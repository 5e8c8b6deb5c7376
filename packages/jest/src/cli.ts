import { createRequire } from 'node:module'
import { join } from 'node:path'
import {
  ALLOW_CI_RECORDING_ENV,
  CI_FROM_ENV,
  formatMessage,
  isTruthyEnv,
  MODE_ENV,
  resolveMode,
  TAPE_MODES,
} from '@agent-tape/core/internal'
import {
  applyModeSwitch,
  FAIL_ON_OBSOLETE_FLAG,
  JEST_BIN,
  PRUNE_FLAG,
  RESUME_FLAG,
  UPDATE_FLAG,
} from '@agent-tape/runner-kit'
import { FAIL_ON_OBSOLETE_ENV, PRUNE_ENV } from './bridge.js'

/**
 * `agent-tape-jest [jest arguments] [--update-cassettes | --resume-cassettes] [--prune-cassettes] [--fail-on-obsolete]`:
 * Jest's own CLI with our switches, wherever they stand (before or after `--`). Jest rejects flags it
 * does not know, so they are taken out and passed on as environment variables.
 */
export function main(argv: readonly string[] = process.argv.slice(2)): void {
  const args = takeSwitches(argv)
  // Jest prints its own help after ours.
  if (args.rest.includes('--help') || args.rest.includes('-h')) process.stdout.write(`${HELP}\n`)
  if (args.prune) process.env[PRUNE_ENV] = '1'
  if (args.failOnObsolete) process.env[FAIL_ON_OBSOLETE_ENV] = '1'
  try {
    applyModeSwitch(
      [...(args.update ? [UPDATE_FLAG] : []), ...(args.resume ? [RESUME_FLAG] : [])],
      process.env,
    )
    // Refuse recording in CI once, before Jest starts (`--ci` counts as CI, as it does for Jest).
    const ci = args.rest.includes('--ci') || args.rest.includes('--ci=true')
    const ciEnv = isTruthyEnv(process.env.CI)
      ? process.env
      : { ...process.env, CI: 'true', [CI_FROM_ENV]: "Jest's --ci" }
    resolveMode({ env: ci ? ciEnv : process.env })
  } catch (error) {
    console.error(error instanceof Error ? error.message : String(error))
    process.exit(1)
  }
  loadJest().run(args.rest)
}

// The modes come from core's list, the one every message that names them reads.
const HELP = `${JEST_BIN}: Jest's CLI, with agent-tape's switches (before or after --)

  ${UPDATE_FLAG}   re-record every tape that runs (refused in CI unless ${ALLOW_CI_RECORDING_ENV}=1)
  ${RESUME_FLAG}   replay each tape while it matches its cassette, record from its first miss (refused in CI too)
  ${PRUNE_FLAG}    delete the cassettes of tapes that no longer exist
  ${FAIL_ON_OBSOLETE_FLAG}   fail the run when it finds such cassettes (CI), instead of listing them

Environment: ${MODE_ENV}=${TAPE_MODES.join('|')} sets the mode for one run.
Every other argument is Jest's:
`

export function takeSwitches(argv: readonly string[]): {
  rest: string[]
  update: boolean
  resume: boolean
  prune: boolean
  failOnObsolete: boolean
} {
  const ours = [UPDATE_FLAG, RESUME_FLAG, PRUNE_FLAG, FAIL_ON_OBSOLETE_FLAG]
  const rest = argv.filter((a) => !ours.includes(a))
  // A `--` that only introduced our switches would make Jest read nothing after it.
  if (rest.at(-1) === '--') rest.pop()
  return {
    rest,
    update: argv.includes(UPDATE_FLAG),
    resume: argv.includes(RESUME_FLAG),
    prune: argv.includes(PRUNE_FLAG),
    failOnObsolete: argv.includes(FAIL_ON_OBSOLETE_FLAG),
  }
}

function loadJest(): { run(argv?: string[]): Promise<void> } {
  // The project's Jest, the one `npx jest` would run.
  for (const from of [join(process.cwd(), 'package.json'), process.argv[1] ?? process.cwd()]) {
    try {
      return createRequire(from)('jest')
    } catch {}
  }
  console.error(
    formatMessage({
      what: 'agent-tape-jest cannot start Jest',
      why: `the package "jest" is not installed in ${process.cwd()}`,
      fix: 'Install it: npm install --save-dev jest',
    }),
  )
  process.exit(1)
}
