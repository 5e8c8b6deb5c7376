// What agent-tape's own packages share beyond the user API: keys, messages, secrets, modes,
// the tape context the boundaries read. No semver promise: import it only from agent-tape's
// packages, at the same version.

export type { DecisionKey, DecisionPosition } from './canonical-key.js'
export { computeKey, isDecisionKey, isValidKind, KEY_SCHEME_VERSION, stableJson } from './canonical-key.js'
export { encodingAsRead, isSameRecording } from './cassette-format.js'
export {
  decisionLabel,
  describeDecision,
  describeLane,
  describePosition,
  SESSION_KIND,
} from './describe-decision.js'
export type { DivergenceContext } from './divergence.js'
export { deepInputError, isStackOverflow } from './errors.js'
export type { MessageParts } from './format-message.js'
export {
  createPrintMask,
  cutForPrinting,
  formatMessage,
  formatReason,
  MESSAGE_PREFIX,
  maskForPrinting,
} from './format-message.js'
export type { HarnessComparison } from './harness.js'
export { compareHarness } from './harness.js'
export type { IgnoreResult } from './ignore-paths.js'
export { IGNORED_ITEM, IgnorePaths, validateIgnoreRules } from './ignore-paths.js'
export * from './index.js'
export type { FieldChange } from './json-diff.js'
export { diffJson, diffStringHunks, diffStrings, formatChange, formatChanges } from './json-diff.js'
export { assertKnownOptions, closestName } from './known-options.js'
export type { McpInput } from './mcp-messages.js'
export { isJsonRpcResponse, MCP_ERROR_NAME, mcpInput, recordedMcpError } from './mcp-messages.js'
export type { ResolvedMode, ResolveModeOptions } from './modes.js'
export {
  ALLOW_CI_RECORDING_ENV,
  assertMode,
  CI_FROM_ENV,
  describeCi,
  isTruthyEnv,
  MODE_ENV,
  MODE_FROM_ENV,
  replaysModels,
  rerecords,
  resolveMode,
  setModeFromFlag,
} from './modes.js'
export { openRecordingTape } from './open-tape.js'
export { mcpOutsideTapeError } from './outside-tapes.js'
export { toRecordedError, toReplayedError } from './recorded-error.js'
export type { CassetteFinding } from './secret-scan.js'
export { findCassetteSecrets, redactCassetteForReading, scanCassette } from './secret-scan.js'
export type { EnvSecret, SecretFinding, SecretMatch, SecretRule } from './secrets/index.js'
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
export type { NameStrength } from './secrets/names.js'
export { credentialName, isCredentialValue, isStandIn } from './secrets/names.js'
export { isCodeReference, isPlaceholder } from './secrets/placeholders.js'
export type { DecisionLabeler } from './tape-context.js'
export {
  activeTapeCount,
  activeTapes,
  addDecisionLabels,
  beforeTapeOpens,
  claimingTapeCount,
  isInsideDecision,
  onTapeFinish,
  onTapeRun,
  prepareTapeOpen,
  replaysOutsideTapes,
  runInsideDecision,
  runMode,
  setProcessTape,
  setRunMode,
} from './tape-context.js'
export type { TapeInternals } from './tape-internals.js'
export { answersFromCassette, tapeInternals } from './tape-internals.js'
export type {
  BegunDecision,
  LiveDecision,
  LiveGate,
  LiveGateAnswer,
  ReservedRequest,
  WireRequest,
} from './tape-options.js'
export { diffTextRows, type TextPiece, type TextRow } from './text-rows.js'
export { WIRE_SCHEME_VERSION } from './wire-hasher.js'
export { diffWordHunks, type WordPart } from './word-diff.js'
