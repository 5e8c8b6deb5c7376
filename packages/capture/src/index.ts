// Capture the runs of an LLM agent in a long-running process (staging, production) as
// agent-tape cassettes, to be promoted into tests with `agent-tape promote`.
export type { Capture } from './capture.js'
export { createCapture } from './capture.js'
export type { CaptureStats, DropReason } from './capture-stats.js'
export { DROP_REASONS } from './capture-stats.js'
export type { FetchCaptureOptions, FetchHandler } from './fetch-handler.js'
export type { NextFunction, NodeCaptureOptions, NodeHandler } from './node-handler.js'
export type { CapturedFile, CaptureOptions } from './options.js'
export type { CaptureRun } from './recorded-run.js'
export { CASSETTE_ATTRIBUTE } from './trace-link.js'
