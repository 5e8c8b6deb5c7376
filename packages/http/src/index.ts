export { claimsRequest } from './claims.js'
export type { KeyVariable, ModelCodec, OtherCredentials, TokenUsage } from './codecs/codec.js'
export {
  codecByName,
  findCodec,
  isModelHost,
  isVolatileField,
  KEY_VARIABLES,
  keyVariableNames,
  MODEL_CODECS,
  MODEL_HOSTS,
  PROVIDER_ID,
} from './codecs/index.js'
export type { AnswerToolCall, ModelAnswer, ModelRequest } from './codecs/read.js'
export type { EndpointPattern, RequestClass } from './endpoints.js'
export { classifyUrl, isLoopbackHost } from './endpoints.js'
export type { BoundaryConfig, RequestOutcome } from './handle-request.js'
export { handleRequest } from './handle-request.js'
export type { HttpBoundary, HttpBoundaryOptions } from './install.js'
export { installHttpBoundary } from './install.js'
export { jsonRpcOutcome } from './mcp-http.js'
export type { MswInterceptionConfig } from './msw-interception.js'
export { useMswInterception } from './msw-interception.js'
export type { HostPattern } from './network/allow-hosts.js'
export type { ChildPreparer, ChildProcessPolicy, ChildStart } from './network/child-processes.js'
export { addChildPreparer, childProcessesOf } from './network/child-processes.js'
export type { RecordedModelUsage } from './read-exchange.js'
export {
  compactArguments,
  describeHttpDecision,
  readModelAnswer,
  readModelRequest,
  recordedModelUsage,
  useCodecLabels,
} from './read-exchange.js'
export type { NdjsonLine, RecordedBody, RecordedResponse, SseEvent, StreamEnd } from './recorded-response.js'
export { isRecordedResponse } from './recorded-response.js'
export { framingHeader, implausibleTimes, MAX_PLAUSIBLE_MS } from './replay-checks.js'
export type { ReplayKeysOptions } from './replay-keys.js'
export { placeholderIn, placeholderKey, provideReplayKeys, REPLAY_PLACEHOLDER_KEY } from './replay-keys.js'
export type { ReplayTiming } from './replay-response.js'
export { buildReplayResponse } from './replay-response.js'
export type { StreamEvent, StreamFormat } from './streams/index.js'
export { recordedStream, STREAM_FORMATS, streamEvents } from './streams/index.js'
export { serializeSseEvent } from './streams/sse-parser.js'
export { recordedUsage, sumUsage } from './usage.js'
