// The user API of the HTTP boundary: installing it, its options, the MSW mode, the placeholder
// keys of a replay, and the shapes a cassette stores an HTTP response in. What agent-tape's own
// packages share beyond it is in `@agent-tape/http/internal`.
export type { EndpointPattern } from './endpoints.js'
export type { HttpBoundary, HttpBoundaryOptions } from './install.js'
export { installHttpBoundary } from './install.js'
export type { MswInterceptionConfig } from './msw-interception.js'
export { useMswInterception } from './msw-interception.js'
export type { HostPattern } from './network/allow-hosts.js'
export type { ChildProcessPolicy } from './network/child-processes.js'
export type { NdjsonLine, RecordedBody, RecordedResponse, SseEvent, StreamEnd } from './recorded-response.js'
export { isRecordedResponse } from './recorded-response.js'
export type { ReplayKeysOptions } from './replay-keys.js'
export { provideReplayKeys } from './replay-keys.js'
export type { ReplayTiming } from './replay-timing.js'
