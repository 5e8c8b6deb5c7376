// What agent-tape's own packages share beyond the user API (`@agent-tape/http`): deciding a
// request, the provider codecs and what they read from a recorded exchange, usage, streams, the
// checks `verify` runs, child processes. No semver promise: import it only from agent-tape's
// packages, at the same version.
export type { PreparedBoundary } from './boundary.js'
export { installedBoundary } from './boundary.js'
export type { ModelCodec, TokenUsage } from './codecs/codec.js'
export { USAGE_PARTS } from './codecs/codec.js'
export {
  codecByName,
  findCodec,
  isVolatileField,
  MODEL_CODECS,
  PROVIDER_ID,
  priceProvidersOf,
  SESSION_CODECS,
} from './codecs/index.js'
export type { AnswerToolCall, ModelAnswer, ModelRequest } from './codecs/read.js'
export type { RequestClass } from './endpoints.js'
export { classifyUrl, isLoopbackHost } from './endpoints.js'
export type { BoundaryConfig, RequestOutcome } from './handle-request.js'
export { handleRequest } from './handle-request.js'
export { jsonRpcOutcome } from './mcp-http.js'
export type { ChildPreparer, ChildStart } from './network/child-processes.js'
export { addChildPreparer, childProcessesOf } from './network/child-processes.js'
export { recordObserved } from './observed/record-observed.js'
export type { SpoiledJournal } from './observed/run-journal.js'
export { RunJournal } from './observed/run-journal.js'
export type { RecordedModelUsage } from './read-exchange.js'
export {
  compactArguments,
  describeHttpDecision,
  isModelRequest,
  readModelAnswer,
  readModelRequest,
  recordedModelUsage,
  useCodecLabels,
} from './read-exchange.js'
export { framingHeader, implausibleTimes } from './replay-checks.js'
export type { PlannedKey } from './replay-key-plan.js'
export { planReplayKeys } from './replay-keys.js'
export { readRequestParts, wireHead } from './request-input.js'
export { recordedStream } from './streams/index.js'
export { recordedUsage, sumUsage } from './usage.js'
export { readSessionDecision, sessionToolNames } from './websocket/read-session.js'
