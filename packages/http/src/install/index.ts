// What a runner's setup file installs before each test file is imported: the interception (or
// the MSW mode) and the placeholder keys of a replay. It loads the network guards and a thin
// interception layer only; the interceptors and deciding a request for a tape are loaded once a
// tape opens (see lazy-interception.ts and request-handling.ts), so a test file without tapes
// does not pay for them.
export type { EndpointPattern } from '../endpoints.js'
export type { HttpBoundary, HttpBoundaryOptions } from '../install.js'
export { installHttpBoundary } from '../install.js'
export type { MswInterceptionConfig } from '../msw-interception.js'
export { useMswInterception } from '../msw-interception.js'
export type { HostPattern } from '../network/allow-hosts.js'
export type { ChildProcessPolicy } from '../network/child-processes.js'
export type { ReplayKeysOptions } from '../replay-keys.js'
export { provideReplayKeys } from '../replay-keys.js'
export type { ReplayTiming } from '../replay-timing.js'
