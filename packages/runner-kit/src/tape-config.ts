import {
  assertKnownOptions,
  assertMode,
  ConfigError,
  type IgnoreRule,
  type Normalizer,
  type Redactor,
  type TapeMode,
  validateIgnoreRules,
} from '@agent-tape/core/internal'
import type { ReplayTiming } from '@agent-tape/http'
import { DEFAULT_CASSETTE_DIR } from './cassette-path.js'
import type { TapeBudget } from './cost/budget.js'
import { toPattern, toRegExp } from './http-options.js'
import type { RunnerTapeConfig } from './test-tape.js'

/** A pattern in a runner's config: a string, or a RegExp. */
export type Pattern = string | RegExp

/**
 * The agent-tape options, the same for every runner: the Vitest plugin's `agentTape(options)`
 * and Jest's `testEnvironmentOptions.agentTape`. Everything here is data, because it travels to
 * the test workers; function-valued rules go in a setup file through `configureTape()`.
 */
export interface RunnerOptions {
  /** Folder beside each test file that holds its cassettes (default `__cassettes__`). */
  cassetteDir?: string
  /** Mode when neither `AGENT_TAPE_MODE` nor `-- --update-cassettes` is given (default: `auto` locally, `replay` in CI). */
  mode?: TapeMode
  /** Base URLs of model endpoints beyond the known provider hosts (a local or test server), or RegExps on the URL. */
  modelEndpoints?: readonly Pattern[]
  /**
   * Hosts a tape test may reach for real in every mode, neither recorded nor blocked (a local
   * database): `'db.internal'`, `'db.internal:5432'`, `'*.internal'`, or a RegExp on `host:port`.
   * Any other connection that agent-tape cannot record or replay is refused while a tape runs.
   */
  allowHosts?: readonly Pattern[]
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
  /**
   * Redactors for the human-readable copy of each input: `{ name, pattern, replacement? }`, the
   * pattern a RegExp with the `g` flag or its source (`flags` default to `g`).
   */
  redactors?: readonly { name: string; pattern: Pattern; flags?: string; replacement?: string }[]
  /** Normalizers applied before keying, identically at record and replay: `{ name, kinds?, pattern, replacement }`. */
  normalizers?: readonly {
    name: string
    kinds?: readonly string[]
    pattern: Pattern
    flags?: string
    replacement: string
  }[]
  /**
   * Fields every key leaves out, as JSON paths into a decision's canonical input, `*` for any key
   * or item: `['body.metadata.request_id', 'body.messages.*.id']`, or `{ path, kinds }` for some
   * kinds only. The fields are still stored (redacted); `show` and `view` list them as ignored.
   */
  ignore?: readonly IgnoreRule[]
  /**
   * The most each tape may take, checked as it finishes, recording or replaying: model requests
   * (`steps`), `tokens` (all, or `{ input, output }`), and `usd` at the recording's prices. A
   * tape over it fails with `ERR_TAPE_BUDGET` and the numbers per decision.
   */
  budget?: TapeBudget
  /**
   * Fail the run when it finds cassettes that no test uses any more, instead of listing them
   * (default false; also `--fail-on-obsolete`). A CI job then keeps the cassette folders clean.
   */
  failOnObsolete?: boolean
  /** Values the secret scan must accept, such as the fake key of a test server. */
  allowSecrets?: readonly Pattern[]
  /** How replayed streams are paced (default `instant`). */
  timing?: ReplayTiming
  /** Allow recording while `CI` is set (a job meant to record). */
  allowRecordingInCI?: boolean
  /**
   * What a tape does with the child processes its test starts while it records or replays:
   * `'allow'` (default) starts them and names each in the run summary; `'refuse'` throws where one
   * is started and fails the test. agent-tape does not see what a child process sends.
   */
  childProcesses?: 'allow' | 'refuse'
  /**
   * Folder, relative to the project root, where the run summary writes the divergence view of
   * every test whose replay diverged (one HTML page each), for a CI job to keep as an artifact.
   * Default: none; the failure report always names the command that writes one.
   */
  viewDir?: string
}

/** Every option name, checked against the type: a name added to one must be added to the other. */
export const RUNNER_OPTION_NAMES: readonly string[] = Object.keys({
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
  ignore: true,
  budget: true,
  failOnObsolete: true,
  allowSecrets: true,
  timing: true,
  allowRecordingInCI: true,
  childProcesses: true,
  viewDir: true,
} satisfies Record<keyof RunnerOptions, true>)

/** A RegExp as data. */
export interface RegExpData {
  source: string
  flags: string
}

/** A pattern as data: a string, or a RegExp's source and flags. */
export type PatternData = string | RegExpData

/**
 * The options once resolved: checked, defaults applied, and every pattern as data, so that the
 * config travels from the process that reads it to every test worker unchanged.
 */
export interface TapeConfig {
  cassetteDir: string
  mode?: TapeMode
  modelEndpoints: PatternData[]
  allowHosts: PatternData[]
  interception: 'agent-tape' | 'msw'
  harness?: { paths: string[]; strict: boolean }
  failOnUnused: boolean
  redactors: { name: string; pattern: RegExpData; replacement?: string }[]
  normalizers: { name: string; kinds?: string[]; pattern: RegExpData; replacement: string }[]
  ignore: IgnoreRule[]
  budget?: TapeBudget
  failOnObsolete: boolean
  allowSecrets: PatternData[]
  timing: ReplayTiming
  allowRecordingInCI: boolean
  childProcesses: 'allow' | 'refuse'
  viewDir?: string
}

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
 * Checks a runner's agent-tape options and resolves them to a {@link TapeConfig}. Unknown names,
 * wrong types and patterns that are not patterns fail here, once, with where they were written.
 */
export function resolveTapeConfig(raw: unknown, source: ConfigSource): TapeConfig {
  if (raw === undefined || raw === null) raw = {}
  if (typeof raw !== 'object' || Array.isArray(raw)) {
    throw new ConfigError({
      what: `Invalid agent-tape options in ${source.where}`,
      why: `they must be an object, got ${JSON.stringify(raw)}`,
      fix: 'Write them as an object, e.g. { harness: ["src/agent"] }',
    })
  }
  assertKnownOptions(raw as object, [...RUNNER_OPTION_NAMES, ...(source.extraOptions ?? [])], source.where)
  const options = raw as RunnerOptions
  const invalid = (option: string, expected: string, fix = source.patternFix) =>
    new ConfigError({
      what: `Invalid option ${option} in ${source.where}`,
      why: `it must be ${expected}`,
      fix,
    })
  const list = <T>(option: string, value: readonly T[] | undefined): readonly T[] => {
    if (value === undefined) return []
    if (!Array.isArray(value))
      throw invalid(option, `an array, got ${describe(value)}`, `Write ${option}: [ … ]`)
    return value
  }
  const regExpData = (pattern: unknown, flags: string | undefined, option: string): RegExpData => {
    if (pattern instanceof RegExp) return { source: pattern.source, flags: flags ?? pattern.flags }
    if (typeof pattern === 'string')
      return { source: checkedSource(pattern, flags ?? 'g', option), flags: flags ?? 'g' }
    throw invalid(option, `a RegExp or a RegExp source string, got ${describe(pattern)}`)
  }
  const patternData = (pattern: unknown, option: string, strings: 'literal' | 'regexp'): PatternData => {
    if (typeof pattern === 'string')
      return strings === 'literal' ? pattern : { source: checkedSource(pattern, '', option), flags: '' }
    if (pattern instanceof RegExp) return { source: pattern.source, flags: pattern.flags }
    throw invalid(option, `a string or a RegExp, got ${describe(pattern)}`)
  }
  return {
    cassetteDir:
      typeof options.cassetteDir === 'string' ? options.cassetteDir : checkUnset(options.cassetteDir),
    ...(options.mode === undefined
      ? {}
      : { mode: assertMode(String(options.mode), `mode in ${source.where}`) }),
    modelEndpoints: list('modelEndpoints', options.modelEndpoints).map((p, i) =>
      patternData(p, `modelEndpoints[${i}]`, 'literal'),
    ),
    allowHosts: list('allowHosts', options.allowHosts).map((p, i) =>
      patternData(p, `allowHosts[${i}]`, 'literal'),
    ),
    interception: interceptionOf(options.interception, invalid),
    ...(options.harness === undefined
      ? {}
      : {
          harness: {
            paths: list('harness', options.harness).map((path, i) => {
              if (typeof path !== 'string')
                throw invalid(
                  `harness[${i}]`,
                  `a path, got ${describe(path)}`,
                  'Write harness: ["src/agent"]',
                )
              return path
            }),
            strict: options.strictHarness === true,
          },
        }),
    failOnUnused: options.failOnUnused !== false,
    redactors: list('redactors', options.redactors).map((r, i) => ({
      name: r.name,
      pattern: regExpData(r.pattern, r.flags, `redactors[${i}].pattern`),
      ...(r.replacement === undefined ? {} : { replacement: r.replacement }),
    })),
    normalizers: list('normalizers', options.normalizers).map((n, i) => ({
      name: n.name,
      ...(n.kinds ? { kinds: [...n.kinds] } : {}),
      pattern: regExpData(n.pattern, n.flags, `normalizers[${i}].pattern`),
      replacement: n.replacement,
    })),
    ignore: ignoreRules(list('ignore', options.ignore), source.where),
    ...(options.budget === undefined ? {} : { budget: budgetOf(options.budget, invalid) }),
    failOnObsolete: options.failOnObsolete === true,
    allowSecrets: list('allowSecrets', options.allowSecrets).map((p, i) =>
      patternData(p, `allowSecrets[${i}]`, source.secretStrings),
    ),
    timing: options.timing ?? 'instant',
    allowRecordingInCI: options.allowRecordingInCI === true,
    childProcesses: childProcessesOf(options.childProcesses, invalid),
    ...(options.viewDir === undefined ? {} : { viewDir: checkFolder(options.viewDir) }),
  }

  function checkFolder(value: unknown): string {
    if (typeof value === 'string' && value.trim() !== '') return value
    throw invalid('viewDir', `a folder path, got ${describe(value)}`, 'Write viewDir: "agent-tape-views"')
  }

  function checkUnset(value: unknown): string {
    if (value === undefined) return DEFAULT_CASSETTE_DIR
    throw invalid(
      'cassetteDir',
      `a folder name, got ${describe(value)}`,
      'Write cassetteDir: "__cassettes__"',
    )
  }
  function checkedSource(pattern: string, flags: string, option: string): string {
    try {
      new RegExp(pattern, flags)
      return pattern
    } catch (error) {
      throw invalid(option, `a valid RegExp source (${(error as Error).message})`, 'Correct the pattern')
    }
  }
}

/** A config's patterns compiled again, as each test's tape reads them. */
export function toRunnerTapeConfig(config: TapeConfig): RunnerTapeConfig {
  return {
    cassetteDir: config.cassetteDir,
    ...(config.mode ? { mode: config.mode } : {}),
    allowRecordingInCI: config.allowRecordingInCI,
    ...(config.harness ? { harness: config.harness } : {}),
    failOnUnused: config.failOnUnused,
    redactors: config.redactors.map(
      (r): Redactor => ({
        name: r.name,
        pattern: toRegExp(r.pattern),
        ...(r.replacement === undefined ? {} : { replacement: r.replacement }),
      }),
    ),
    normalizers: config.normalizers.map((n): Normalizer => ({ ...n, pattern: toRegExp(n.pattern) })),
    ...(config.ignore?.length ? { ignore: config.ignore } : {}),
    allowSecrets: config.allowSecrets.map(toPattern),
    ...(config.budget ? { budget: config.budget } : {}),
  }
}

/** Ignore rules as data, checked: the core's message, with where they were written. */
function ignoreRules(rules: readonly IgnoreRule[], where: string): IgnoreRule[] {
  validateIgnoreRules(rules, where)
  return rules.map((r) =>
    typeof r === 'string' ? r : { path: r.path, ...(r.kinds ? { kinds: [...r.kinds] } : {}) },
  )
}

/** A budget, checked: each limit a number of 0 or more, tokens a number or `{ input, output }`. */
function budgetOf(
  value: unknown,
  invalid: (option: string, expected: string, fix?: string) => ConfigError,
): TapeBudget {
  const fix =
    'Write budget: { steps: 8, tokens: 20_000, usd: 0.05 } (each limit optional; tokens may be { input, output })'
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    throw invalid('budget', `an object, got ${describe(value)}`, fix)
  const record = value as Record<string, unknown>
  const limit = (name: string, n: unknown): number => {
    if (typeof n === 'number' && Number.isFinite(n) && n >= 0) return n
    throw invalid(`budget.${name}`, `a number of 0 or more, got ${describe(n)}`, fix)
  }
  const budget: TapeBudget = {}
  for (const [name, n] of Object.entries(record)) {
    if (n === undefined) continue
    if (name === 'steps' || name === 'usd') budget[name] = limit(name, n)
    else if (name === 'tokens' && typeof n === 'object' && n !== null && !Array.isArray(n)) {
      const tokens: { input?: number; output?: number } = {}
      for (const [part, m] of Object.entries(n)) {
        if (part !== 'input' && part !== 'output')
          throw invalid(`budget.tokens.${part}`, 'one of input, output', fix)
        tokens[part] = limit(`tokens.${part}`, m)
      }
      budget.tokens = tokens
    } else if (name === 'tokens') budget.tokens = limit(name, n)
    else throw invalid(`budget.${name}`, 'one of steps, tokens, usd', fix)
  }
  return budget
}

function childProcessesOf(
  value: unknown,
  invalid: (option: string, expected: string, fix?: string) => ConfigError,
): 'allow' | 'refuse' {
  if (value === undefined || value === 'allow') return 'allow'
  if (value === 'refuse') return 'refuse'
  throw invalid(
    'childProcesses',
    `"allow" (the default: child processes start, and the run summary names them) or "refuse" (starting one while a tape records or replays fails the test), got ${describe(value)}`,
    "Write childProcesses: 'refuse', or leave it out",
  )
}

function interceptionOf(
  value: unknown,
  invalid: (option: string, expected: string, fix?: string) => ConfigError,
): 'agent-tape' | 'msw' {
  if (value === undefined || value === 'agent-tape') return 'agent-tape'
  if (value === 'msw') return 'msw'
  throw invalid(
    'interception',
    `"agent-tape" (the default: agent-tape intercepts requests itself) or "msw" (your MSW server does, with tapeHandlers() among its handlers), got ${describe(value)}`,
    "Write interception: 'msw', or leave it out",
  )
}

function describe(value: unknown): string {
  if (value instanceof RegExp) return String(value)
  if (typeof value === 'object' && value !== null && !Array.isArray(value) && Object.keys(value).length === 0)
    return '{} (a RegExp sent as JSON arrives as {})'
  return JSON.stringify(value) ?? String(value)
}
