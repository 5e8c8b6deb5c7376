// What a runner's setup file installs before each test file is imported: the boundary's stand-ins
// (or the MSW mode) and the placeholder keys of a replay, planned where the runner resolved its
// options. It loads a handful of modules: what serves a tape (the interceptors, the guards, what
// decides a request) loads with the first tape (see boundary.ts and decision 0035), so a test file
// without tapes does not pay for it. Settings are taken as checked: `installHttpBoundary`, in the
// package's main entry, checks them for everyone else.
export type { BoundarySettings, PreparedBoundary } from '../boundary.js'
export { prepareBoundary } from '../boundary.js'
export type { MswInterceptionConfig } from '../msw-interception.js'
export { useMswInterception } from '../msw-interception.js'
export type { PlannedKey } from '../replay-key-plan.js'
export { applyReplayKeys } from '../replay-key-plan.js'
