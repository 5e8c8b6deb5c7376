import { ConfigError, resolveMode, setModeFromFlag, type TapeMode } from '@agent-tape/core/runtime'
import type { TapeConfig } from './option-table.js'
import { RESUME_FLAG, UPDATE_FLAG } from './rerecord-command.js'

/**
 * The mode a run's tapes take: the config's `mode` (or `AGENT_TAPE_MODE`, or `auto`) resolved
 * against the environment. Refuses, with a `ConfigError`, a mode that records in CI unless the
 * config or the environment allows it: each runner asks once, before any test runs.
 */
export function runModeOf(
  config: Pick<TapeConfig, 'mode' | 'allowRecordingInCI'>,
  env: Record<string, string | undefined>,
): TapeMode {
  return resolveMode({ mode: config.mode, env, allowRecordingInCI: config.allowRecordingInCI }).mode
}

/** The runner switches that choose a mode that re-records, each with its mode. */
const MODE_SWITCHES = [
  { flag: UPDATE_FLAG, mode: 'update' },
  { flag: RESUME_FLAG, mode: 'resume' },
] as const

/**
 * Sets the mode the runner's own command line asks for (`--update-cassettes`: `update`;
 * `--resume-cassettes`: `resume`), remembering the switch for messages; nothing when neither is
 * in `args`. Both at once is refused with a `ConfigError`: they ask for different runs.
 */
export function applyModeSwitch(args: readonly string[], env: Record<string, string | undefined>): void {
  const given = MODE_SWITCHES.filter((s) => args.includes(s.flag))
  if (given.length > 1) {
    throw new ConfigError({
      what: `Both ${UPDATE_FLAG} and ${RESUME_FLAG} were given`,
      why: `${UPDATE_FLAG} re-records every tape from its first decision, and ${RESUME_FLAG} replays each tape while it matches its cassette and records from its first miss`,
      fix: 'Give one of them',
    })
  }
  const [chosen] = given
  if (chosen) setModeFromFlag(env, chosen.mode, chosen.flag)
}
