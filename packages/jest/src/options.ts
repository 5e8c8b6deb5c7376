import {
  assertKnownOptions,
  assertMode,
  ConfigError,
  DEFAULT_CASSETTE_DIR,
  type Normalizer,
  type Redactor,
  type TapeMode,
} from '@agent-tape/core'
import type { ReplayTiming } from '@agent-tape/http'

/** A pattern in the Jest config: a RegExp source string (or a RegExp, when Jest runs in band). */
export type ConfigPattern = string | RegExp

/**
 * Options of the agent-tape Jest environment, under `testEnvironmentOptions.agentTape`. Jest
 * sends its config to its workers as JSON, so everything here is data; function rules go in
 * a setup file through `configureTape()`.
 *
 * @example
 * // jest.config.js
 * module.exports = {
 *   preset: '@agent-tape/jest',
 *   testEnvironmentOptions: { agentTape: { harness: ['src/agent'] } },
 * }
 */
export interface AgentTapeJestOptions {
  /** Folder beside each test file that holds its cassettes (default `__cassettes__`). */
  cassetteDir?: string
  /** Mode when neither `AGENT_TAPE_MODE` nor `--update-cassettes` is given (default: `auto` locally, `replay` in CI). */
  mode?: TapeMode
  /** Base URLs of model endpoints beyond the known provider hosts (a local or test server). */
  modelEndpoints?: readonly string[]
  /**
   * Hosts a tape test may reach for real in every mode, neither recorded nor blocked (a local
   * database): `'db.internal'`, `'db.internal:5432'`, `'*.internal'`. Any other connection that
   * agent-tape cannot record or replay is refused while a tape runs.
   */
  allowHosts?: readonly string[]
  /**
   * What intercepts requests: agent-tape's own interception (default), or `'msw'`, the MSW server
   * your setup file starts, with `tapeHandlers()` from `@agent-tape/http/msw` among its handlers.
   * Jest loads msw only with Node's VM modules enabled (see the package README).
   */
  interception?: 'agent-tape' | 'msw'
  /** Paths of the agent loop ("harness") whose git tree is written in each cassette. */
  harness?: readonly string[]
  /** Fail replays recorded under a different harness tree, instead of warning (default false). */
  strictHarness?: boolean
  /** Fail replays that leave recorded decisions unused (default true). */
  failOnUnused?: boolean
  /** Redactors for the human-readable copy of each input; `flags` default to `g`. */
  redactors?: readonly { name: string; pattern: ConfigPattern; flags?: string; replacement?: string }[]
  /** Normalizers applied before keying, identically at record and replay; `flags` default to `g`. */
  normalizers?: readonly {
    name: string
    kinds?: readonly string[]
    pattern: ConfigPattern
    flags?: string
    replacement: string
  }[]
  /** Values the secret scan must accept (RegExp sources), such as the fake key of a test server. */
  allowSecrets?: readonly ConfigPattern[]
  /** How replayed streams are paced (default `instant`). */
  timing?: ReplayTiming
  /** Allow recording while `CI` is set (a job meant to record). */
  allowRecordingInCI?: boolean
}

/** The options after validation, with patterns compiled. */
export interface ResolvedJestOptions {
  cassetteDir: string
  mode?: TapeMode
  modelEndpoints: string[]
  allowHosts: string[]
  interception: 'agent-tape' | 'msw'
  harness?: { paths: string[]; strict: boolean }
  failOnUnused: boolean
  redactors: Redactor[]
  normalizers: Normalizer[]
  allowSecrets: RegExp[]
  timing: ReplayTiming
  allowRecordingInCI: boolean
}

export function resolveOptions(raw: unknown): ResolvedJestOptions {
  const options = (raw ?? {}) as AgentTapeJestOptions
  if (typeof options !== 'object' || Array.isArray(options)) {
    throw invalid('testEnvironmentOptions.agentTape', `an object, got ${JSON.stringify(raw)}`)
  }
  assertKnownOptions(options, OPTION_NAMES, 'testEnvironmentOptions.agentTape of the Jest config')
  return {
    cassetteDir: options.cassetteDir ?? DEFAULT_CASSETTE_DIR,
    ...(options.mode === undefined
      ? {}
      : { mode: assertMode(options.mode, 'testEnvironmentOptions.agentTape.mode') }),
    modelEndpoints: (options.modelEndpoints ?? []).map((url, i) => {
      if (typeof url !== 'string') throw invalid(`modelEndpoints[${i}]`, 'a base URL string')
      return url
    }),
    allowHosts: (options.allowHosts ?? []).map((host, i) => {
      if (typeof host !== 'string')
        throw invalid(`allowHosts[${i}]`, 'a host name string, such as "db.internal:5432"')
      return host
    }),
    interception: assertInterception(options.interception),
    ...(options.harness
      ? { harness: { paths: [...options.harness], strict: options.strictHarness === true } }
      : {}),
    failOnUnused: options.failOnUnused !== false,
    redactors: (options.redactors ?? []).map((r, i) => ({
      name: r.name,
      pattern: compile(r.pattern, r.flags, `redactors[${i}].pattern`),
      ...(r.replacement === undefined ? {} : { replacement: r.replacement }),
    })),
    normalizers: (options.normalizers ?? []).map((n, i) => ({
      name: n.name,
      ...(n.kinds ? { kinds: [...n.kinds] } : {}),
      pattern: compile(n.pattern, n.flags, `normalizers[${i}].pattern`),
      replacement: n.replacement,
    })),
    allowSecrets: (options.allowSecrets ?? []).map((p, i) => compile(p, '', `allowSecrets[${i}]`)),
    timing: options.timing ?? 'instant',
    allowRecordingInCI: options.allowRecordingInCI === true,
  }
}

/** Every option name, checked against the type: a name added to one must be added to the other. */
const OPTION_NAMES = Object.keys({
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
} satisfies Record<keyof AgentTapeJestOptions, true>)

function assertInterception(value: unknown): 'agent-tape' | 'msw' {
  if (value === undefined || value === 'agent-tape') return 'agent-tape'
  if (value === 'msw') return 'msw'
  throw invalid(
    'interception',
    '"agent-tape" (the default) or "msw" (your MSW server intercepts, with tapeHandlers() in it)',
    "Write interception: 'msw', or leave it out",
  )
}

function compile(pattern: unknown, flags: string | undefined, where: string): RegExp {
  if (pattern instanceof RegExp) return flags === undefined ? pattern : new RegExp(pattern.source, flags)
  if (typeof pattern === 'string') return new RegExp(pattern, flags ?? 'g')
  throw invalid(
    where,
    'a RegExp source string; Jest sends its config to workers as JSON, where a RegExp arrives as {}',
  )
}

const PATTERN_FIX =
  'Write patterns as strings (e.g. { name: "email", pattern: "[\\\\w.+-]+@[\\\\w.-]+" }), or register RegExp and function rules with configureTape() in a setup file'

function invalid(where: string, expected: string, fix = PATTERN_FIX): ConfigError {
  return new ConfigError({
    what: `Invalid agent-tape option ${where} in the Jest config`,
    why: `it must be ${expected}`,
    fix,
  })
}
