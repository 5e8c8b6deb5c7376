import { claimingTapeCount, currentTape, replaysOutsideTapes } from '@agent-tape/core/context'
import type { BoundaryConfig, RequestOutcome } from './handle-request.js'
import { mayBeMcp } from './mcp-shape.js'

type RequestHandling = typeof import('./handle-request.js')

let loading: Promise<RequestHandling> | undefined

/**
 * Loads what deciding a request for a tape takes (keys, codecs, streams, recording, replay) and
 * the labels reports give model requests (`model request (gpt-4o)`, read through the request's
 * codec), once, on first need: a test file that opens no tape never loads it. The first tape of a
 * process waits for it (`applyBoundary`, or the MSW mode's guards), so no tape runs without it.
 */
export function loadRequestHandling(): Promise<RequestHandling> {
  loading ??= Promise.all([import('./handle-request.js'), import('./read-exchange.js')]).then(
    ([handling, exchange]) => {
      exchange.useCodecLabels()
      return handling
    },
  )
  return loading
}

/**
 * `handleRequest`, loaded on first need. Outside every tape, while no tape that claims such
 * requests runs (see `claimingTapeCount`), a request passes (what `handleRequest` answers first),
 * so that answer needs nothing loaded.
 */
export async function handleRequestWhenTaped(
  request: Request,
  config: BoundaryConfig,
  perform: (request: Request) => Promise<Response>,
): Promise<RequestOutcome> {
  if (
    !currentTape() &&
    claimingTapeCount() === 0 &&
    !(replaysOutsideTapes() && mayBeMcp(request.method, request.headers))
  )
    return { type: 'passthrough' }
  const { handleRequest } = await loadRequestHandling()
  return handleRequest(request, config, perform)
}
