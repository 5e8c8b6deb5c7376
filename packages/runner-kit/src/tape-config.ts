import { assertKnownOptions, ConfigError } from '@agent-tape/core/internal'
import { optionContext } from './option-checks.js'
import { RUNNER_OPTIONS, type RunnerOption, type TapeConfig } from './option-table.js'

/** Every option name, in the table's order. */
export const RUNNER_OPTION_NAMES: readonly string[] = Object.keys(RUNNER_OPTIONS)

/** How one runner reads its options. */
export interface ConfigSource {
  /** Where the options are written, for messages: `the agentTape() options`. */
  where: string
  /** Option names the runner accepts beyond {@link RUNNER_OPTION_NAMES}. */
  extraOptions?: readonly string[]
  /**
   * How a string in `allowSecrets` is read: a literal value, or a RegExp source (Jest, whose
   * config reaches its workers as JSON, where a RegExp cannot travel).
   */
  secretStrings: 'literal' | 'regexp'
  /** What to do about a pattern that is neither a string nor a RegExp. */
  patternFix: string
}

/**
 * Checks a runner's agent-tape options and resolves them to a {@link TapeConfig}, option by
 * option through `RUNNER_OPTIONS`. Unknown names (with the closest known one), wrong types and
 * patterns that are not patterns fail here, once, with where they were written.
 */
export function resolveTapeConfig(options: unknown, source: ConfigSource): TapeConfig {
  const raw = options ?? {}
  if (typeof raw !== 'object' || Array.isArray(raw)) {
    throw new ConfigError({
      what: `Invalid agent-tape options in ${source.where}`,
      why: `they must be an object, got ${JSON.stringify(raw)}`,
      fix: 'Write them as an object, e.g. { harness: ["src/agent"] }',
    })
  }
  assertKnownOptions(raw, [...RUNNER_OPTION_NAMES, ...(source.extraOptions ?? [])], source.where)
  const written = raw as Record<string, unknown>
  const context = optionContext(source.where, source.secretStrings, source.patternFix)
  const config: Record<string, unknown> = {}
  for (const [name, spec] of Object.entries(RUNNER_OPTIONS) as [string, RunnerOption<unknown, unknown>][]) {
    // A default is copied: a config is data its reader may change.
    const value =
      written[name] === undefined ? structuredClone(spec.default) : spec.check(written[name], context)
    if (value !== undefined) config[name] = value
  }
  return config as TapeConfig
}
