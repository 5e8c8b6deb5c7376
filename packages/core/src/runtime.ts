// What the boundaries and the runners use while tapes run, beyond the tape context: agent-tape's
// errors and the messages they print (masked by the secret scanner), the modes, the refusal of
// work done outside every tape. It loads with the first tape of a process (or the first test file
// that defines one), never with a runner's setup file. No semver promise, as `internal`: import it
// only from agent-tape's packages, at the same version.

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
export { mcpOutsideTapeError } from './outside-tapes.js'
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
  replaysOutsideTapes,
  runInsideDecision,
  runMode,
  runWithTape,
  setProcessTape,
  setRunMode,
} from './tape-context.js'
