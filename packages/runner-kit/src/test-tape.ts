import { join, resolve } from 'node:path'
import {
  type AgentTapeError,
  type CassetteStore,
  type HarnessProvider,
  isAgentTapeError,
  MODE_ENV,
  type Normalizer,
  openTape,
  type Redactor,
  type SecretAllowList,
  type Tape,
  type TapeMode,
  type TapeState,
  tapeInternals,
} from '@agent-tape/core/internal'
import { createGitHarness } from '@agent-tape/core/node'
import { childProcessesOf } from '@agent-tape/http/internal'
import { priceUsage, readRecordedUsage, type UsageReader } from '@agent-tape/inspect/cost'
import { cassettePathFor } from './cassette-path.js'
import { budgetFailure } from './cost/budget.js'
import { readRerecord, readRunUsage } from './cost/tape-usage.js'
import { provideRunMeasure } from './cost/usage-slot.js'
import {
  CASSETTE_OUT_ENV,
  cassetteStoreFor,
  DRIFT_DIR_ENV,
  noteDriftTape,
  readDriftPlan,
  writtenPath,
} from './drift/drift-folder.js'
import { createSpendGate } from './drift/spend-ledger.js'
import { chooseCassette } from './legacy-cassette.js'
import type { TapeConfig } from './option-table.js'
import { toPattern, toRegExp } from './patterns.js'
import { buildRerecordCommand, RESUME_FLAG, type RerecordCommandInput } from './rerecord-command.js'
import { runModeOf } from './run-mode.js'
import { buildViewCommand, keepDivergedRun, runPathFor } from './runs/diverged-run.js'
import type { TapeRuntimeOptions } from './runtime-options.js'
import { withoutFrames } from './tape-failure.js'
import { replayedTokens, summarizeOpenFailure } from './tape-outcome.js'
import { summarizeTape, type TapeSummaryEntry } from './tape-summary.js'

/** The options a test's tape reads: its slice of the config, patterns as data. */
export type TestTapeConfig = Pick<
  TapeConfig,
  | 'cassetteDir'
  | 'mode'
  | 'allowRecordingInCI'
  | 'harness'
  | 'strictHarness'
  | 'failOnUnused'
  | 'redactors'
  | 'normalizers'
  | 'ignore'
  | 'allowSecrets'
  | 'budget'
>

export interface TestTapeInput {
  runner: RerecordCommandInput['runner']
  /** `npx`, `pnpm`, … for the re-record command. */
  exec: string
  /** The test file, relative to the project root, with `/` separators. */
  testFile: string
  /** Names from the outermost `describe` to the test: the cassette's folders, then its name. */
  names: readonly string[]
  /** The tape name: the cassette file name. */
  name: string
  /** The command its failures print to re-record it (default: the one that re-records this test). */
  rerecordCommand?: string
  /**
   * Whether no other tape of the test file has this name: only then may a tape in describe
   * blocks read the cassette it had before cassettes were named by their describe path.
   */
  uniqueName?: boolean
  /**
   * Where the test is defined (`/abs/test/a.test.ts:12:3`): the one frame of the failure's
   * stack, for a runner that reads a stack without frames as a one-line message (Jest).
   */
  site?: string
  /** The project root: cassette paths and the harness are relative to it. */
  root: string
  /** Reads and writes cassettes relative to the root (default: the file system). */
  store?: CassetteStore
  config: TestTapeConfig
  /** The setup file's options; their rules add to the config's. */
  runtime: TapeRuntimeOptions
  /** The harness reader, asked for only when the config names harness paths (default: git). */
  harnessProvider?: () => HarnessProvider
  /** Reads replayed token usage when the runtime options give no reader (default: the codecs'). */
  usage?: UsageReader
  /** Environment for mode resolution and the secret scan (default `process.env`). */
  env?: Record<string, string | undefined>
  /** The test's timeout, which a replay paced as recorded must not outlast (see `TapeOptions`). */
  testTimeoutMs?: number
  /** Receives the tape's summary entry: when it cannot open, and when it finishes. */
  report(entry: TapeSummaryEntry): void
  /**
   * Receives the entry again when something reached the tape after its test had finished (its
   * `lateUses` grew), for a runner whose reporter would not see the entry change otherwise.
   */
  reportLate?(entry: TapeSummaryEntry): void
}

/** The open tape of one test. */
export interface TestTape {
  readonly tape: Tape
  /**
   * Finishes the tape, reports its summary entry, and returns its failure, if it has one: the
   * failure the test reports first, whatever else it failed with (see `failureFirst`), with no
   * stack frames of the agent-tape code that found it.
   */
  finish(): Promise<Error | undefined>
}

/**
 * Opens the tape of one test as both runners do: the cassette beside the test file, the
 * config's rules followed by the setup file's, and the command that re-records only this test.
 * A tape that cannot open is reported as an `error` entry, and its error is thrown.
 *
 * @example
 * const { tape, finish } = await openTestTape({ runner: 'jest', testFile, names, name, ... })
 * const failure = await finish()
 */
export async function openTestTape(input: TestTapeInput): Promise<TestTape> {
  const { config, runtime, testFile, names } = input
  const id = `${testFile} > ${names.join(' > ')}`
  const env = input.env ?? process.env
  const store = input.store ?? cassetteStoreFor(input.root, env)
  const choice = await chooseCassette({
    store,
    testFile,
    cassetteDir: config.cassetteDir,
    name: input.name,
    path: cassettePathFor({
      testFile,
      describes: names.slice(0, -1),
      name: input.name,
      cassetteDir: config.cassetteDir,
    }),
    uniqueName: input.uniqueName === true,
    mode: openFailureMode(config, input.env),
  })
  const cassettePath = choice.path
  const drift = driftOf(input.root, cassettePath, id, env)
  const runPath = runPathFor(input.root, cassettePath, input.env)
  const allowSecrets = [...config.allowSecrets.map(toPattern), ...(runtime.allowSecrets ?? [])]
  // What reaches the tape once it has finished: the test fails with it while `finish` still runs,
  // and after that the summary names it with the test.
  let phase: 'running' | 'finishing' | 'done' = 'running'
  const lateWhileFinishing: AgentTapeError[] = []
  let reported: TapeSummaryEntry | undefined
  const onLateUse = (error: AgentTapeError) => {
    if (phase !== 'done' || !reported) {
      lateWhileFinishing.push(error)
      return
    }
    reported.lateUses = [...(reported.lateUses ?? []), describeLateUse(error)]
    input.reportLate?.(reported)
  }
  let tape: Tape
  try {
    tape = await openTape({
      id,
      cassettePath,
      store,
      ...(input.env || drift?.env ? { env: drift?.env ?? env } : {}),
      ...(config.mode ? { mode: config.mode } : {}),
      ...(drift?.liveGate ? { liveGate: drift.liveGate } : {}),
      allowRecordingInCI: config.allowRecordingInCI,
      ...(config.harness
        ? { harness: { provider: harnessOf(input), paths: config.harness, strict: config.strictHarness } }
        : {}),
      redactors: [...config.redactors.map(toRedactor), ...(runtime.redactors ?? [])],
      normalizers: [...config.normalizers.map(toNormalizer), ...(runtime.normalizers ?? [])],
      ...(config.ignore.length > 0 ? { ignore: config.ignore } : {}),
      allowSecrets,
      failOnUnused: config.failOnUnused,
      rerecordCommand:
        input.rerecordCommand ??
        buildRerecordCommand({ runner: input.runner, testFile, names, exec: input.exec }),
      // A setup hook's tape names its own command, and records its block whole.
      ...(input.rerecordCommand
        ? {}
        : {
            resumeCommand: buildRerecordCommand({
              runner: input.runner,
              testFile,
              names,
              exec: input.exec,
              flag: RESUME_FLAG,
            }),
          }),
      viewCommand: buildViewCommand({ exec: input.exec, cassettePath, runPath }),
      ...(runtime.sdks ? { sdks: runtime.sdks } : {}),
      onLateUse,
      ...(input.testTimeoutMs ? { testTimeoutMs: input.testTimeoutMs } : {}),
    })
  } catch (error) {
    const entry = summarizeOpenFailure(id, cassettePath, error, openFailureMode(config, input.env))
    drift?.note(entry, isAgentTapeError(error) ? error : undefined)
    input.report(entry)
    throw error
  }
  const reader = onceEach(runtime.usage ?? input.usage ?? readRecordedUsage)
  provideRunMeasure(tape, { usage: () => readRunUsage(tape, tape.state, reader), price: priceUsage })
  return {
    tape,
    async finish() {
      phase = 'finishing'
      const state = await tape.finish()
      const run = readRunUsage(tape, state, reader)
      const entry = summaryEntryOf(tape, state, run, { id, reader, movesTo: choice.movesTo })
      // Checked recording as well as replaying: a re-record that blows the budget fails as it happens.
      const overBudget = config.budget ? budgetFailure(config.budget, tape, run, priceUsage) : undefined
      await keepDivergedRunOf(tape, entry, {
        runPath,
        store,
        env: input.env ?? process.env,
        allow: allowSecrets,
      })
      const children = childProcessesOf(tape)
      if (children.length > 0) entry.childProcesses = [...children]
      if (lateWhileFinishing.length > 0) entry.lateUses = lateWhileFinishing.map(describeLateUse)
      reported = entry
      phase = 'done'
      const failure = tape.failure() ?? lateWhileFinishing[0] ?? overBudget
      drift?.note(entry, failure)
      input.report(entry)
      return failure ? withoutFrames(failure, input.site) : undefined
    },
  }
}

/** The summary entry of a finished tape: what it did, what it used, what it re-recorded. */
function summaryEntryOf(
  tape: Tape,
  state: TapeState,
  run: ReturnType<typeof readRunUsage>,
  { id, reader, movesTo }: { id: string; reader: UsageReader; movesTo: string | undefined },
): TapeSummaryEntry {
  const tokens =
    state.action === 'replay'
      ? replayedTokens(state, tapeInternals(tape).recordedDecisions(), reader)
      : undefined
  const entry = summarizeTape(state, id, tokens)
  if (movesTo) entry.movesTo = movesTo
  if (run.usage.length > 0) entry.usage = run.usage
  if (run.recordedAt !== undefined && run.usage.length > 0) entry.recordedAt = run.recordedAt
  const rerecorded = readRerecord(tape, state, reader)
  if (rerecorded) entry.rerecorded = rerecorded
  return entry
}

/**
 * Keeps the run of a replay that diverged where the report's view command looks for it, and says
 * in the entry where it is (or why it could not be kept).
 */
async function keepDivergedRunOf(
  tape: Tape,
  entry: TapeSummaryEntry,
  target: {
    runPath: string
    store: CassetteStore
    env: Record<string, string | undefined>
    allow: SecretAllowList
  },
): Promise<void> {
  const diverged = tapeInternals(tape).divergedRun()
  if (!diverged) return
  const kept = await keepDivergedRun(diverged, target.runPath, target.store, {
    env: target.env,
    allow: target.allow,
  })
  if (kept.kept) entry.run = target.runPath
  else entry.warnings = [...(entry.warnings ?? []), kept.why]
}

/** A late use as the summary names it: what its error says failed (`A decision of kind "llm" reached …`). */
function describeLateUse(error: AgentTapeError): string {
  const text = error.message.replace(/^\[agent-tape\] /, '')
  const end = text.indexOf(': ')
  return end === -1 ? text : text.slice(0, end)
}

/**
 * What a run of `agent-tape drift` asks of this tape (see `DRIFT_DIR_ENV`): its outcome noted in
 * the drift folder, the mode of a tape the plan keeps from going live (`replay`), and the budget's
 * gate on its live model requests. `undefined` outside a drift run.
 */
function driftOf(root: string, cassettePath: string, test: string, env: Record<string, string | undefined>) {
  const dir = env[DRIFT_DIR_ENV]
  if (!dir) return undefined
  const plan = readDriftPlan(dir)
  const cassette = resolve(root, cassettePath)
  const live = plan?.live === undefined || plan.live.includes(cassette)
  return {
    env: live ? undefined : { ...env, [MODE_ENV]: 'replay' },
    // The ledger counts what a live run spends, with a budget or without.
    liveGate: plan && live ? createSpendGate(join(dir, 'spend.jsonl'), plan.budget ?? {}, test) : undefined,
    note(entry: TapeSummaryEntry, failure: AgentTapeError | undefined) {
      noteDriftTape(dir, {
        test,
        cassette,
        mode: entry.mode,
        status: entry.status,
        written: entry.written,
        ...(entry.recordingRefused ? { refused: true } : {}),
        ...(env[CASSETTE_OUT_ENV] ? { out: writtenPath(root, cassettePath, env[CASSETTE_OUT_ENV]) } : {}),
        ...(entry.run ? { run: resolve(root, entry.run) } : {}),
        ...(failure ? { failure: { code: failure.code, message: failure.message } } : {}),
      })
    },
  }
}

function toRedactor(redactor: TestTapeConfig['redactors'][number]): Redactor {
  return { ...redactor, pattern: toRegExp(redactor.pattern) }
}

function toNormalizer(normalizer: TestTapeConfig['normalizers'][number]): Normalizer {
  return { ...normalizer, pattern: toRegExp(normalizer.pattern) }
}

function harnessOf(input: TestTapeInput): HarnessProvider {
  return input.harnessProvider ? input.harnessProvider() : createGitHarness(input.root)
}

/** The mode a tape that could not open is listed under: the one it would have run in. */
function openFailureMode(config: TestTapeConfig, env = process.env): TapeMode {
  try {
    return runModeOf(config, env)
  } catch {
    return 'replay'
  }
}

/**
 * `reader`, reading each decision once: a tape's finish asks for the usage of every decision it
 * served several times over (the tokens replayed, the run's usage, a budget), and a recorded
 * decision's input is rebuilt from its patches to be read.
 */
function onceEach(reader: UsageReader): UsageReader {
  const read = new WeakMap<object, ReturnType<UsageReader>>()
  return (decision) => {
    if (read.has(decision)) return read.get(decision)
    const usage = reader(decision)
    read.set(decision, usage)
    return usage
  }
}
