import { assertMode, type IgnoreRule, type TapeMode, validateIgnoreRules } from '@agent-tape/core/internal'
import type { ReplayTiming } from '@agent-tape/http'
import { DEFAULT_CASSETTE_DIR } from './cassette-path.js'
import type { TapeBudget } from './cost/budget.js'
import { budgetOf, describe, listOf, type OptionContext, patternList, regExpData } from './option-checks.js'
import type { PatternData, RegExpData } from './patterns.js'
import type { RunnerOptions } from './runner-options.js'

/** One runner option: how it is checked, what it is when not written, and what the docs say of it. */
export interface RunnerOption<Resolved, Default extends Resolved | undefined> {
  /** What the option does, one line: its row in the docs' option table. */
  doc: string
  /** The value when the option is not written; `undefined` leaves it out of the config. */
  default: Default
  /** The default as the docs' table shows it, when the value alone does not say it. */
  shownDefault?: string
  /**
   * Checks a written value (anything but `undefined`: it comes from a user's config) and resolves
   * it to data that travels to the test workers; a value it cannot take throws a `ConfigError`
   * naming the option and where it was written.
   */
  check(value: unknown, context: OptionContext): Resolved
}

function option<Resolved, Default extends Resolved | undefined = Resolved>(
  spec: RunnerOption<Resolved, Default>,
): RunnerOption<Resolved, Default> {
  return spec
}

/**
 * Every runner option, in the order they are checked and listed: the Vitest plugin's
 * `agentTape(options)` and Jest's `testEnvironmentOptions.agentTape` read this table, and so do
 * the unknown-option check and the docs' option table (a test keeps docs/vitest.md's in step).
 * `RunnerOptions` is the type users write; `satisfies` below keeps the two to the same names.
 * Adding an option: a row here (and its name in `REPORT_OPTIONS` when the run summary reads it),
 * its line in `RunnerOptions`, and the code that reads it from the config through its slice: a
 * test's tape (`test-tape.ts`), the HTTP boundary (`http-options.ts`), the run summary
 * (`finish-run.ts`). No runner file names an option.
 */
export const RUNNER_OPTIONS = {
  cassetteDir: option<string>({
    doc: 'Folder beside each test file that holds its cassettes.',
    default: DEFAULT_CASSETTE_DIR,
    check(value, { invalid }) {
      if (typeof value === 'string') return value
      throw invalid(
        'cassetteDir',
        `a folder name, got ${describe(value)}`,
        'Write cassetteDir: "__cassettes__"',
      )
    },
  }),
  mode: option<TapeMode, undefined>({
    doc: 'Mode when neither `AGENT_TAPE_MODE` nor `--update-cassettes` is given.',
    default: undefined,
    shownDefault: "`'auto'` locally, `'replay'` in CI",
    check: (value, { where }) => assertMode(String(value), `mode in ${where}`),
  }),
  modelEndpoints: option<PatternData[]>({
    doc: 'Base URLs of model endpoints beyond the known provider hosts (a local or test server), or RegExps on the URL.',
    default: [],
    check: (value, context) => patternList('modelEndpoints', value, context),
  }),
  allowHosts: option<PatternData[]>({
    doc: "Hosts a tape test reaches for real in every mode, neither recorded nor blocked: `'db.internal:5432'`, `'*.internal'`, or a RegExp on `host:port`.",
    default: [],
    check: (value, context) => patternList('allowHosts', value, context),
  }),
  interception: option<'agent-tape' | 'msw'>({
    doc: "What intercepts requests: agent-tape itself, or `'msw'`, your MSW server with `tapeHandlers()` among its handlers.",
    default: 'agent-tape',
    check(value, { invalid }) {
      if (value === 'agent-tape' || value === 'msw') return value
      throw invalid(
        'interception',
        `"agent-tape" (the default: agent-tape intercepts requests itself) or "msw" (your MSW server does, with tapeHandlers() among its handlers), got ${describe(value)}`,
        "Write interception: 'msw', or leave it out",
      )
    },
  }),
  harness: option<string[], undefined>({
    doc: 'Paths of the agent loop ("harness") whose git tree is written in each cassette.',
    default: undefined,
    shownDefault: 'none',
    check: (value, context) =>
      listOf('harness', value, context).map((path, i) => {
        if (typeof path === 'string') return path
        throw context.invalid(
          `harness[${i}]`,
          `a path, got ${describe(path)}`,
          'Write harness: ["src/agent"]',
        )
      }),
  }),
  strictHarness: option<boolean>({
    doc: 'Fail replays recorded under a different harness tree, instead of warning.',
    default: false,
    check: (value) => value === true,
  }),
  failOnUnused: option<boolean>({
    doc: 'Fail replays that leave recorded decisions unused.',
    default: true,
    check: (value) => value !== false,
  }),
  redactors: option<{ name: string; pattern: RegExpData; replacement?: string }[]>({
    doc: 'Redactors for the human-readable copy of each input: `{ name, pattern, flags?, replacement? }`, the pattern a RegExp or its source (flags default to `g`).',
    default: [],
    check: (value, context) =>
      listOf<{ name: string; pattern: unknown; flags?: string; replacement?: string }>(
        'redactors',
        value,
        context,
      ).map((r, i) => ({
        name: r.name,
        pattern: regExpData(r.pattern, r.flags, `redactors[${i}].pattern`, context),
        ...(r.replacement === undefined ? {} : { replacement: r.replacement }),
      })),
  }),
  normalizers: option<{ name: string; kinds?: string[]; pattern: RegExpData; replacement: string }[]>({
    doc: 'Normalizers applied before keying, identically at record and replay: `{ name, kinds?, pattern, flags?, replacement }`.',
    default: [],
    check: (value, context) =>
      listOf<{
        name: string
        kinds?: readonly string[]
        pattern: unknown
        flags?: string
        replacement: string
      }>('normalizers', value, context).map((n, i) => ({
        name: n.name,
        ...(n.kinds ? { kinds: [...n.kinds] } : {}),
        pattern: regExpData(n.pattern, n.flags, `normalizers[${i}].pattern`, context),
        replacement: n.replacement,
      })),
  }),
  ignore: option<IgnoreRule[]>({
    doc: "Fields every key leaves out, as JSON paths into a decision's canonical input (`*` for any key or item), or `{ path, kinds }`; they are still stored.",
    default: [],
    check(value, context) {
      const rules = listOf<IgnoreRule>('ignore', value, context)
      validateIgnoreRules(rules, context.where)
      return rules.map((r) =>
        typeof r === 'string' ? r : { path: r.path, ...(r.kinds ? { kinds: [...r.kinds] } : {}) },
      )
    },
  }),
  budget: option<TapeBudget, undefined>({
    doc: 'The most each tape may take, recording or replaying: `{ steps, tokens, usd }`, `tokens` a number or `{ input, output }`; a tape over it fails with `ERR_TAPE_BUDGET`.',
    default: undefined,
    shownDefault: 'none',
    check: budgetOf,
  }),
  failOnObsolete: option<boolean>({
    doc: 'Fail the run when it finds cassettes that no test uses any more, instead of listing them (also `--fail-on-obsolete`).',
    default: false,
    check: (value) => value === true,
  }),
  allowSecrets: option<PatternData[]>({
    doc: "Values the secret scan accepts, such as a test server's fake key: a RegExp, or a string (a literal value under Vitest, a RegExp source under Jest).",
    default: [],
    check: (value, context) => patternList('allowSecrets', value, context, context.secretStrings),
  }),
  timing: option<ReplayTiming>({
    doc: "How replayed streams are paced: `'instant'`, `'recorded'`, or `{ speed: 4 }` (never past the test's timeout).",
    default: 'instant',
    // Not checked here: the HTTP boundary reads it.
    check: (value) => (value ?? 'instant') as ReplayTiming,
  }),
  allowRecordingInCI: option<boolean>({
    doc: 'Allow recording while `CI` is set (a job meant to record).',
    default: false,
    check: (value) => value === true,
  }),
  childProcesses: option<'tape' | 'allow' | 'refuse'>({
    doc: "What a tape does with the child processes its test starts: `'tape'` tapes each in a lane of its own (`child-1`, …; a Node child through the preload, a program outside Node through the gateway's base URLs and proxy variables), its requests recorded into the test's cassette or replayed from it, a miss failing the test; `'allow'` starts them untaped and the run summary names them, leaving the promise that a replay reaches no network; `'refuse'` fails the test that starts one.",
    default: 'tape',
    check(value, { invalid }) {
      if (value === 'tape' || value === 'allow' || value === 'refuse') return value
      throw invalid(
        'childProcesses',
        `"tape" (the default: a Node child gets the tape's boundary in a lane of its own), "allow" (child processes start untaped, and the run summary names them) or "refuse" (starting one while a tape records or replays fails the test), got ${describe(value)}`,
        "Write childProcesses: 'allow' or 'refuse', or leave it out",
      )
    },
  }),
  interceptHttps: option<boolean>({
    doc: "Tape the HTTPS that a tape's child processes outside Node send through the proxy variables (`curl https://…`), with a certificate authority made for the test process, given to them through `SSL_CERT_FILE` and the like.",
    default: false,
    check(value, { invalid }) {
      if (typeof value === 'boolean') return value
      throw invalid(
        'interceptHttps',
        `true or false, got ${describe(value)}`,
        'Write interceptHttps: true, or leave it out',
      )
    },
  }),
  viewDir: option<string, undefined>({
    doc: 'Folder, relative to the project root, where the run summary writes the HTML view of each test whose replay diverged.',
    default: undefined,
    shownDefault: 'none',
    check(value, { invalid }) {
      if (typeof value === 'string' && value.trim() !== '') return value
      throw invalid('viewDir', `a folder path, got ${describe(value)}`, 'Write viewDir: "agent-tape-views"')
    },
  }),
} satisfies { [Name in keyof RunnerOptions]-?: RunnerOption<unknown, unknown> }

type OptionTable = typeof RUNNER_OPTIONS
type Resolved<Name extends keyof OptionTable> = ReturnType<OptionTable[Name]['check']>
/** The options left out of the config when they are not written. */
type Unset = {
  [Name in keyof OptionTable]: OptionTable[Name]['default'] extends undefined ? Name : never
}[keyof OptionTable]

/**
 * The options once resolved: checked, defaults applied, every pattern as data, so that the
 * config travels from the process that reads it to every test worker unchanged. What reads it
 * takes its slice (`Pick<TapeConfig, …>`) and compiles the patterns it reads.
 */
export type TapeConfig = { [Name in Exclude<keyof OptionTable, Unset>]: Resolved<Name> } & {
  [Name in Unset]?: Resolved<Name>
}

/**
 * The options the run summary reads (`finishRun`). A runner hands this slice of its config to
 * its reporter as it is (`reportConfigOf`), so no runner names an option its reporter reads.
 */
export const REPORT_OPTIONS = [
  'cassetteDir',
  'viewDir',
  'failOnObsolete',
] as const satisfies readonly (keyof TapeConfig)[]

/** The run summary's slice of a config. */
export type ReportConfig = Pick<TapeConfig, (typeof REPORT_OPTIONS)[number]>

/** A config's slice for the run summary, as data (it may travel to the reporter as JSON). */
export function reportConfigOf(config: Partial<ReportConfig>): Partial<ReportConfig> {
  const slice: Partial<Record<keyof ReportConfig, unknown>> = {}
  for (const name of REPORT_OPTIONS) if (config[name] !== undefined) slice[name] = config[name]
  return slice as Partial<ReportConfig>
}

/**
 * The docs' option table, as Markdown: one row per option, in the table's order. docs/vitest.md
 * holds it between `<!-- runner-options -->` markers, and a test checks that it is this text.
 */
export function renderOptionTable(): string {
  const rows = Object.entries(RUNNER_OPTIONS).map(
    ([name, spec]: [string, RunnerOption<unknown, unknown>]) => [
      `\`${name}\``,
      spec.shownDefault ?? `\`${showValue(spec.default)}\``,
      spec.doc,
    ],
  )
  const header = ['option', 'default', 'what it does']
  const widths = header.map((title, i) => Math.max(title.length, ...rows.map((row) => row[i]!.length)))
  const line = (cells: readonly string[]) =>
    `| ${cells.map((cell, i) => cell.padEnd(widths[i]!)).join(' | ')} |`
  return [line(header), line(widths.map((w) => '-'.repeat(w))), ...rows.map(line)].join('\n')
}

function showValue(value: unknown): string {
  return typeof value === 'string' ? `'${value}'` : JSON.stringify(value)
}
