import { ConfigError, type RunnerTapeConfig, type TapeMode } from '@agent-tape/core'

/** Pattern-based rules travel from the config process to the test workers as data. */
export interface SerializedRegExp {
  source: string
  flags: string
}

export type SerializedPattern = string | SerializedRegExp

export type ReplayTiming = 'instant' | 'recorded' | { speed: number }

/**
 * Options of the {@link agentTape} plugin. Everything here is data, because it is sent to the
 * test workers; function-valued redactors and normalizers go in a setup file through
 * `configureTape()` from `@agent-tape/vitest`.
 */
export interface AgentTapeOptions {
  /** Folder beside each test file that holds its cassettes (default `__cassettes__`). */
  cassetteDir?: string
  /** Mode when neither `AGENT_TAPE_MODE` nor `-- --update-cassettes` is given (default: `auto` locally, `replay` in CI). */
  mode?: TapeMode
  /** Base URLs of model endpoints beyond the known provider hosts (a local or test server). */
  modelEndpoints?: readonly (string | RegExp)[]
  /**
   * Hosts a tape test may reach for real in every mode, neither recorded nor blocked (a local
   * database): `'db.internal'`, `'db.internal:5432'`, `'*.internal'`, or a RegExp on `host:port`.
   * Any other connection that agent-tape cannot record or replay is refused while a tape runs.
   */
  allowHosts?: readonly (string | RegExp)[]
  /**
   * What intercepts requests: agent-tape's own interception (default), or `'msw'`, the MSW server
   * your setup file starts, with `tapeHandlers()` from `@agent-tape/http/msw` among its handlers.
   */
  interception?: 'agent-tape' | 'msw'
  /** Paths of the agent loop ("harness") whose git tree is written in each cassette. */
  harness?: readonly string[]
  /** Fail replays recorded under a different harness tree, instead of warning (default false). */
  strictHarness?: boolean
  /** Fail replays that leave recorded decisions unused (default true). */
  failOnUnused?: boolean
  /** Redactors for the human-readable copy of each input: `{ name, pattern: /…/g, replacement? }`. */
  redactors?: readonly { name: string; pattern: RegExp; replacement?: string }[]
  /** Normalizers applied before keying, identically at record and replay: `{ name, pattern: /…/g, replacement }`. */
  normalizers?: readonly { name: string; kinds?: readonly string[]; pattern: RegExp; replacement: string }[]
  /** Values the secret scan must accept, such as the fake key of a test server. */
  allowSecrets?: readonly (string | RegExp)[]
  /** How replayed streams are paced (default `instant`). */
  timing?: ReplayTiming
  /** Allow recording while `CI` is set (a job meant to record). */
  allowRecordingInCI?: boolean
  /** Print the run summary (default true). */
  summary?: boolean
}

/** Every option name, checked against the type: a name added to one must be added to the other. */
export const OPTION_NAMES = Object.keys({
  cassetteDir: true,
  mode: true,
  modelEndpoints: true,
  allowHosts: true,
  interception: true,
  harness: true,
  strictHarness: true,
  failOnUnused: true,
  redactors: true,
  normalizers: true,
  allowSecrets: true,
  timing: true,
  allowRecordingInCI: true,
  summary: true,
} satisfies Record<keyof AgentTapeOptions, true>)

/** What the plugin provides to every test worker (`inject('agentTape')`). */
export interface ProvidedTapeConfig {
  root: string
  cassetteDir: string
  mode?: TapeMode
  modelEndpoints: SerializedPattern[]
  allowHosts: SerializedPattern[]
  interception: 'agent-tape' | 'msw'
  harness?: { paths: string[]; strict: boolean }
  failOnUnused: boolean
  redactors: { name: string; pattern: SerializedRegExp; replacement?: string }[]
  normalizers: { name: string; kinds?: string[]; pattern: SerializedRegExp; replacement: string }[]
  allowSecrets: SerializedPattern[]
  timing: ReplayTiming
  allowRecordingInCI: boolean
  /** `npx`, `pnpm`, … for the re-record command. */
  exec: string
}

declare module 'vitest' {
  interface ProvidedContext {
    agentTape: ProvidedTapeConfig
  }
}

export function serializeRegExp(pattern: unknown, what: string): SerializedRegExp {
  if (!(pattern instanceof RegExp)) {
    throw new ConfigError({
      what: `Invalid ${what} in the agentTape() options`,
      why: `its pattern must be a RegExp, got ${typeof pattern}`,
      fix: 'Write it as { name, pattern: /…/g }, or register function rules with configureTape() in a setup file',
    })
  }
  return { source: pattern.source, flags: pattern.flags }
}

export function serializePattern(pattern: string | RegExp): SerializedPattern {
  return typeof pattern === 'string' ? pattern : serializeRegExp(pattern, 'pattern')
}

export function toRegExp(pattern: SerializedRegExp): RegExp {
  return new RegExp(pattern.source, pattern.flags)
}

export function toPattern(pattern: SerializedPattern): string | RegExp {
  return typeof pattern === 'string' ? pattern : toRegExp(pattern)
}

/** The provided config with its patterns compiled again, as the tape of each test reads it. */
export function toTapeConfig(config: ProvidedTapeConfig): RunnerTapeConfig {
  return {
    cassetteDir: config.cassetteDir,
    ...(config.mode ? { mode: config.mode } : {}),
    allowRecordingInCI: config.allowRecordingInCI,
    ...(config.harness ? { harness: config.harness } : {}),
    failOnUnused: config.failOnUnused,
    redactors: config.redactors.map((r) => ({
      name: r.name,
      pattern: toRegExp(r.pattern),
      ...(r.replacement === undefined ? {} : { replacement: r.replacement }),
    })),
    normalizers: config.normalizers.map((n) => ({ ...n, pattern: toRegExp(n.pattern) })),
    allowSecrets: config.allowSecrets.map(toPattern),
  }
}
