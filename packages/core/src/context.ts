// What a boundary and a runner's setup file need before any tape opens: the tape context, the
// errors and the modes. It loads a fraction of `@agent-tape/core/internal` (no cassettes, keys,
// reports or diffs), so a test file without tapes does not pay for them. No semver promise, as
// `internal`: import it only from agent-tape's packages, at the same version.

export type { AgentTapeErrorCode } from './errors.js'
export {
  AgentTapeError,
  ConfigError,
  isAgentTapeError,
  isConfigError,
} from './errors.js'
export type { MessageParts } from './format-message.js'
export { formatMessage, maskForPrinting } from './format-message.js'
export type { ResolvedMode, ResolveModeOptions, TapeMode } from './modes.js'
export {
  CI_FROM_ENV,
  isTruthyEnv,
  replaysModels,
  resolveMode,
  setModeFromFlag,
} from './modes.js'
export { mcpOutsideTapeError, replaysOutsideTapes } from './outside-tapes.js'
export { redactUrl } from './secrets/params.js'
export type { Tape } from './tape.js'
export type { DecisionLabeler } from './tape-context.js'
export {
  activeTapeCount,
  activeTapes,
  addDecisionLabels,
  beforeTapeOpens,
  claimingTapeCount,
  currentTape,
  isInsideDecision,
  onTapeFinish,
  onTapeRun,
  runInsideDecision,
  runMode,
  runWithTape,
  setProcessTape,
  setRunMode,
} from './tape-context.js'
