export type { DecisionKey, DecisionPosition } from './canonical-key.js'
export {
  computeKey,
  isDecisionKey,
  isValidKind,
  KEY_SCHEME_VERSION,
  stableJson,
} from './canonical-key.js'
export type { Cassette, CassetteHeader, DecisionRecord, RecordedError } from './cassette-format.js'
export {
  CASSETTE_FORMAT_VERSION,
  isSameRecording,
  parseCassette,
  serializeCassette,
} from './cassette-format.js'
export type { CassetteStore } from './cassette-store.js'
export { createMemoryStore } from './cassette-store.js'
export { describeDecision, describePosition } from './describe-decision.js'
export type { DivergenceContext, MissDetails } from './divergence.js'
export { DivergenceError, isDivergenceError, isReplayMiss, ReplayMiss } from './divergence.js'
export type { AgentTapeErrorCode } from './errors.js'
export {
  AgentTapeError,
  CassetteCorruptError,
  ConfigError,
  deepInputError,
  isAgentTapeError,
  isCassetteCorruptError,
  isConfigError,
  isSecretLeakError,
  isStackOverflow,
  SecretLeakError,
} from './errors.js'
export type { MessageParts } from './format-message.js'
export { formatMessage, formatReason, MESSAGE_PREFIX, maskForPrinting } from './format-message.js'
export type { HarnessComparison, HarnessIdentity, HarnessProvider } from './harness.js'
export { compareHarness } from './harness.js'
export type { FieldChange } from './json-diff.js'
export { diffJson, diffStringHunks, diffStrings, formatChange, formatChanges } from './json-diff.js'
export { assertKnownOptions } from './known-options.js'
export type { McpMessage, McpTransport, TapeMcpOptions } from './mcp-transport.js'
export { tapeMcpTransport } from './mcp-transport.js'
export type { ResolvedMode, ResolveModeOptions, TapeMode } from './modes.js'
export {
  ALLOW_CI_RECORDING_ENV,
  assertMode,
  CI_FROM_ENV,
  describeCi,
  isTruthyEnv,
  MODE_ENV,
  MODE_FROM_ENV,
  replaysModels,
  resolveMode,
  setModeFromFlag,
  TAPE_MODES,
} from './modes.js'
export type { Normalizer } from './normalize.js'
export { openTape } from './open-tape.js'
export { toRecordedError, toReplayedError } from './recorded-error.js'
export type { Redactor } from './redaction.js'
// Runner-neutral pieces shared by the Vitest and Jest integrations.
export type { DirectoryReader } from './runner/cassette-listing.js'
export { createCassetteListing } from './runner/cassette-listing.js'
export type { CassettePathInput } from './runner/cassette-path.js'
export {
  assertTapeName,
  cassettePathFor,
  DEFAULT_CASSETTE_DIR,
  toPosix,
} from './runner/cassette-path.js'
export { TapeNameRegistry } from './runner/name-registry.js'
export type { CassetteListing, CollectedTestFile } from './runner/obsolete-cassettes.js'
export { findObsoleteCassettes, PRUNE_FLAG } from './runner/obsolete-cassettes.js'
export type { RerecordCommandInput } from './runner/rerecord-command.js'
export { buildRerecordCommand, detectExec, UPDATE_FLAG } from './runner/rerecord-command.js'
export type { RuntimeOptionsSlot, TapeRuntimeOptions } from './runner/runtime-options.js'
export { createRuntimeOptionsSlot } from './runner/runtime-options.js'
export type { TapeMatcherResult, TapeMatchers } from './runner/tape-matchers.js'
export { TAPE_MATCHERS } from './runner/tape-matchers.js'
export type { SummaryTotals, TapeRunSummary, TapeSummaryEntry } from './runner/tape-summary.js'
export {
  renderSummaryMarkdown,
  renderSummaryText,
  summarizeTape,
} from './runner/tape-summary.js'
export type { RunnerTapeConfig, TestTape, TestTapeInput } from './runner/test-tape.js'
export { openTestTape } from './runner/test-tape.js'
export type { TokenUsage, UsageReader } from './runner/token-usage.js'
export { readTokenUsage, sumUsage } from './runner/token-usage.js'
export type { CassetteFinding } from './secret-scan.js'
export { findCassetteSecrets } from './secret-scan.js'
export type {
  EnvSecret,
  SecretAllowList,
  SecretFinding,
  SecretMatch,
  SecretRule,
} from './secrets/index.js'
export {
  findSecrets,
  isSecretParamName,
  maskSecret,
  REDACTED_VALUE,
  readForm,
  redactSecrets,
  redactUrl,
  redactUrlsIn,
  SECRET_RULES,
  SecretScanner,
  secretEnvValues,
} from './secrets/index.js'
export { Tape } from './tape.js'
export {
  activeTapeCount,
  activeTapes,
  currentTape,
  isInsideDecision,
  onTapeRun,
  runInsideDecision,
  runWithTape,
} from './tape-context.js'
export type { BegunDecision, TapeOptions } from './tape-options.js'
export type { DecisionState, DecisionStatus, DivergenceState, TapeAction, TapeState } from './tape-state.js'
export type { TapedTool, TapedTools, ToolDefinition, ToolEffect, ToolOptions, ToolSpec } from './tools.js'
export { AGENT_TAPE_VERSION } from './version.js'
