// What the Vitest and Jest integrations share: options and config, the lifecycle of a test's
// tape, cassette paths and names, re-record commands, matchers and budgets, the run summary and
// the reporter's finish-up. Each runner package keeps only what its runner forces on it; what
// reads cassettes for people (summaries, diffs, the view, costs) is `@agent-tape/inspect`.
export type { DirectoryReader } from './cassette-listing.js'
export { createCassetteListing } from './cassette-listing.js'
export type { CassettePathInput } from './cassette-path.js'
export {
  assertTapeName,
  cassetteNameFor,
  cassettePathFor,
  DEFAULT_CASSETTE_DIR,
  describeFolder,
  toPosix,
} from './cassette-path.js'
export type { BudgetBreach, TapeBudget } from './cost/budget.js'
export { budgetDetails, checkBudget } from './cost/budget.js'
export type { DriftPlan, DriftTapeNote } from './drift/drift-folder.js'
export { CASSETTE_OUT_ENV, DRIFT_DIR_ENV } from './drift/drift-folder.js'
export type { LedgerState, Spend } from './drift/spend-ledger.js'
export { readLedger } from './drift/spend-ledger.js'
export type { FinishRunOptions, ProjectRun } from './finish-run.js'
export { finishRun, obsoleteFailure } from './finish-run.js'
export type { HttpConfig } from './http-options.js'
export { toHttpOptions } from './http-options.js'
export type { CassetteChoice } from './legacy-cassette.js'
export { chooseCassette } from './legacy-cassette.js'
export { loadTapeMatchersWithFirstTape, TAPE_MATCHERS } from './matcher-link.js'
export { TapeNameRegistry } from './name-registry.js'
export type { CassetteListing, CollectedTestFile } from './obsolete-cassettes.js'
export {
  FAIL_ON_OBSOLETE_FLAG,
  findObsoleteCassettes,
  listCassettes,
  PRUNE_FLAG,
} from './obsolete-cassettes.js'
export type { OptionContext } from './option-checks.js'
export type { ReportConfig, RunnerOption, TapeConfig } from './option-table.js'
export { REPORT_OPTIONS, RUNNER_OPTIONS, renderOptionTable, reportConfigOf } from './option-table.js'
export type { Pattern, PatternData, RegExpData } from './patterns.js'
export { toPattern, toRegExp } from './patterns.js'
export { placeholderKeysFor, replayKeyPlanFor } from './placeholder-keys.js'
export type { RerecordCommandInput, RunnerName, SetupRerecordCommandInput } from './rerecord-command.js'
export {
  binCommand,
  buildRerecordCommand,
  buildSetupRerecordCommand,
  buildUpdateAllCommand,
  CLI_BIN,
  detectExec,
  JEST_BIN,
  jestCommand,
  quoteShell,
  RESUME_FLAG,
  UPDATE_FLAG,
} from './rerecord-command.js'
export { applyModeSwitch, runModeOf } from './run-mode.js'
export type { RunnerOptions } from './runner-options.js'
export { CACHE_DIR_ENV, cacheDirFor } from './runs/cache-dir.js'
export type { KeptRun } from './runs/diverged-run.js'
export { buildViewCommand, keepDivergedRun, runPathFor } from './runs/diverged-run.js'
export type { RuntimeOptionsSlot, TapeRuntimeOptions } from './runtime-options.js'
export { createRuntimeOptionsSlot } from './runtime-options.js'
export type { ConfigSource } from './tape-config.js'
export { RUNNER_OPTION_NAMES, resolveTapeConfig } from './tape-config.js'
export type { ErrorLike } from './tape-failure.js'
export { callSiteIn, carriesFailure, failureFirst, isSameFailure, withoutFrames } from './tape-failure.js'
export type { TapeMatcherResult, TapeMatchers } from './tape-matchers.js'
export type { SummaryTotals, TapeRunSummary, TapeSummaryEntry } from './tape-summary.js'
export { renderSummaryMarkdown, renderSummaryText, summarizeTape } from './tape-summary.js'
export type { TestTape, TestTapeConfig, TestTapeInput } from './test-tape.js'
export { openTestTape } from './test-tape.js'
