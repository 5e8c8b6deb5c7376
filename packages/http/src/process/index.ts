// Gives the Node processes of a command the boundary: what a parent needs to start them (the
// variables, the session's files) and to read what they did. Each process loads the preload
// (`@agent-tape/http/preload`) through NODE_OPTIONS. Used by `agent-tape record` and `replay`;
// the same pieces give the child processes of a test the boundary. No semver promise, as
// `@agent-tape/core/internal`.

export { validateEndpointPattern } from '../endpoints.js'
export type { GatewayAddress } from '../gateway/address.js'
export { GATEWAY_ENV, gatewayVariables, PROXY_VARIABLES } from '../gateway/address.js'
export type { GatewayProcess, GatewayProcessOptions } from '../gateway/gateway-process.js'
export { DEFAULT_MAX_REQUEST_BYTES, startGatewayProcess } from '../gateway/gateway-process.js'
export type { GatewayRoute } from '../gateway/routes.js'
export { GATEWAY_ROUTES } from '../gateway/routes.js'
export type { GatewayNotice } from '../gateway/server.js'
export { boundaryVariables, preloadUrl, withPreload } from './child-env.js'
export { compareLanes } from './lane-order.js'
export { startProcessBoundary } from './process-boundary.js'
export type { ProcessReport } from './process-report.js'
export type { ProcessSession } from './process-session.js'
export { openProcessSession } from './process-session.js'
export type { ProcessSessionConfig, ProcessSlot } from './session.js'
export { SESSION_ENV, SLOT_ENV, sessionFiles } from './session.js'
export type { SessionResults } from './session-results.js'
export { mergeRecordings, readSessionResults } from './session-results.js'
