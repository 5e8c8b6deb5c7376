export type { EndpointName, ReceivedRequest } from './received-request.js'
export type { FakeProvider, FakeProviderOptions, Replier } from './server.js'
export { startFakeProvider } from './server.js'
export type { FinishReason, HttpErrorFault, StreamErrorFault, ToolCall, Turn, Usage } from './turn.js'
