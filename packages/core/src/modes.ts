import { ConfigError } from './errors.js'

/**
 * - `replay`: replay only; a missing cassette fails. Default when `CI` is set.
 * - `auto`: replay an existing cassette, record one that does not exist yet. Default locally.
 * - `update`: re-record every tape that runs.
 * - `live`: neither replay nor record; every boundary runs for real.
 * - `live-tools`: model requests replay; tool calls (and MCP calls) run for real and are compared
 *   with the recording: a different result fails the test with a drift report. Never records.
 * - `resume`: replay while the cassette matches, record from the first miss: each lane replays
 *   its decisions while they match the recording, and from its first decision that does not, it
 *   runs live and is recorded. The decisions replayed are kept in the new cassette as they were;
 *   a run that matches entirely leaves the cassette untouched. Records, so refused in CI.
 */
export type TapeMode = 'replay' | 'auto' | 'update' | 'live' | 'live-tools' | 'resume'

export const TAPE_MODES: readonly TapeMode[] = ['replay', 'auto', 'update', 'live', 'live-tools', 'resume']

/** Whether a run in this mode re-records cassettes that exist (so is refused in CI unless allowed). */
export function rerecords(mode: TapeMode): boolean {
  return mode === 'update' || mode === 'resume'
}

/** Whether a run in this mode only replays model requests (and so needs no provider API key). */
export function replaysModels(mode: TapeMode): boolean {
  return mode === 'replay' || mode === 'live-tools'
}

/** Environment variable that selects the mode for scripts: `AGENT_TAPE_MODE=update`. */
export const MODE_ENV = 'AGENT_TAPE_MODE'
/** Set to `1` to allow recording while `CI` is set (a job that is meant to record). */
export const ALLOW_CI_RECORDING_ENV = 'AGENT_TAPE_ALLOW_CI_RECORDING'

export interface ResolveModeOptions {
  /** Mode from the runner's configuration or command line. */
  mode?: string | undefined
  /** Environment to read `AGENT_TAPE_MODE` and `CI` from. */
  env?: Record<string, string | undefined>
  /** Allow `auto`, `update` and `resume` to record even though `CI` is set. */
  allowRecordingInCI?: boolean
}

export interface ResolvedMode {
  mode: TapeMode
  /** Where the mode came from, for reports: `AGENT_TAPE_MODE`, `option`, `CI` or `default`. */
  source: 'env' | 'option' | 'ci' | 'default'
  ci: boolean
}

export function isTruthyEnv(value: string | undefined): boolean {
  return value !== undefined && value !== '' && value !== '0' && value.toLowerCase() !== 'false'
}

export function assertMode(value: string, origin: string): TapeMode {
  if ((TAPE_MODES as readonly string[]).includes(value)) return value as TapeMode
  throw new ConfigError({
    what: `Unknown agent-tape mode ${JSON.stringify(value)} (from ${origin})`,
    why: `valid modes are ${TAPE_MODES.map((m) => `"${m}"`).join(', ')}`,
    fix: 'Use one of them, or leave the mode unset for "auto" locally and "replay" in CI',
  })
}

/**
 * Resolves the mode: `AGENT_TAPE_MODE` wins over the configured option; otherwise `replay`
 * when `CI` is set and `auto` locally. Recording is refused in CI unless explicitly allowed:
 * `update` and `resume` throw, and `auto` degrades to `replay` so a missing cassette fails the test.
 */
export function resolveMode(options: ResolveModeOptions = {}): ResolvedMode {
  const env = options.env ?? {}
  const ci = isTruthyEnv(env.CI)
  const allowRecording =
    !ci || options.allowRecordingInCI === true || isTruthyEnv(env[ALLOW_CI_RECORDING_ENV])
  let resolved: ResolvedMode
  const fromEnv = env[MODE_ENV]
  if (fromEnv !== undefined && fromEnv !== '') {
    resolved = { mode: assertMode(fromEnv, MODE_ENV), source: 'env', ci }
  } else if (options.mode !== undefined) {
    resolved = { mode: assertMode(options.mode, 'the "mode" option'), source: 'option', ci }
  } else {
    resolved = { mode: ci ? 'replay' : 'auto', source: ci ? 'ci' : 'default', ci }
  }
  if (!allowRecording && rerecords(resolved.mode)) {
    throw new ConfigError({
      what: 'Refusing to re-record cassettes in CI',
      why: `mode "${resolved.mode}" was requested (by ${describeSource(resolved.source, env)}) while ${describeCi(env)}, and CI runs must only replay`,
      fix: `Re-record locally and commit the cassettes, or set ${ALLOW_CI_RECORDING_ENV}=1 for a job that is meant to record`,
    })
  }
  if (!allowRecording && resolved.mode === 'auto') return { mode: 'replay', source: 'ci', ci }
  return resolved
}

/**
 * Set by a runner whose own CI switch made the run a CI run while `CI` itself is not set (Jest's
 * `--ci`), so that messages name it rather than a variable the user never set.
 */
export const CI_FROM_ENV = 'AGENT_TAPE_CI_FROM'

/** Why the run counts as CI, for messages: `CI is set`, or the runner's switch. */
export function describeCi(env: Record<string, string | undefined>): string {
  const from = env[CI_FROM_ENV]
  return from ? `${from} is given` : 'CI is set'
}

/**
 * Set beside `AGENT_TAPE_MODE` by a runner that sets the mode from its own command line
 * (`--update-cassettes`), so that messages name what the user actually typed.
 */
export const MODE_FROM_ENV = 'AGENT_TAPE_MODE_FROM'

/** Sets the mode as a runner's command-line switch asks, remembering the switch for messages. */
export function setModeFromFlag(env: Record<string, string | undefined>, mode: TapeMode, flag: string): void {
  env[MODE_ENV] = mode
  env[MODE_FROM_ENV] = flag
}

function describeSource(source: ResolvedMode['source'], env: Record<string, string | undefined>): string {
  if (source === 'env') return env[MODE_FROM_ENV] || MODE_ENV
  if (source === 'option') return 'the "mode" option'
  return source
}
