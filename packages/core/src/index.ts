// The user API of agent-tape's core: open a tape, run code with it, read its state and its
// cassette, and tell its errors apart. What the boundaries, the runner integrations and the
// CLI share beyond this lives in `@agent-tape/core/internal`.
export type {
  CaptureOutcome,
  CaptureSource,
  Cassette,
  CassetteHeader,
  CommandPlaceholder,
  CommandSource,
  DecisionRecord,
  RecordedError,
  RecordingSource,
  RerecordedFrom,
} from './cassette-format.js'
export { CASSETTE_FORMAT_VERSION, parseCassette, serializeCassette } from './cassette-format.js'
export type { CassetteStore } from './cassette-store.js'
export { createMemoryStore } from './cassette-store.js'
export type { LaneProgress, MissDetails } from './divergence.js'
export { DivergenceError, isDivergenceError, isReplayMiss, ReplayMiss } from './divergence.js'
export type { AgentTapeErrorCode, AgentTapeErrorName } from './errors.js'
export {
  AgentTapeError,
  CassetteCorruptError,
  ConfigError,
  isAgentTapeError,
  isCassetteCorruptError,
  isConfigError,
  isSecretLeakError,
  SecretLeakError,
} from './errors.js'
export type { HarnessIdentity, HarnessProvider } from './harness.js'
export type { IgnoreRule } from './ignore-paths.js'
export type { McpMessage } from './mcp-messages.js'
export type { McpTransport, TapeMcpOptions } from './mcp-transport.js'
export { tapeMcpTransport } from './mcp-transport.js'
export type { TapeMode } from './modes.js'
export { TAPE_MODES } from './modes.js'
export type { Normalizer } from './normalize.js'
export { openTape } from './open-tape.js'
export type { Redactor } from './redaction.js'
export type { SecretAllowList } from './secrets/index.js'
export { Tape } from './tape.js'
export { currentTape, runWithTape } from './tape-context.js'
export type { BeginOptions, RunPlace, TapeOptions } from './tape-options.js'
export type { DecisionState, DecisionStatus, DivergenceState, TapeAction, TapeState } from './tape-state.js'
export type { TapedTool, TapedTools, ToolDefinition, ToolEffect, ToolOptions, ToolSpec } from './tools.js'
export { AGENT_TAPE_VERSION } from './version.js'
