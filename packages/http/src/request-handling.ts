import {
  beforeTapeOpens,
  claimingTapeCount,
  currentTape,
  replaysOutsideTapes,
} from '@agent-tape/core/context'
import type { BoundaryConfig, RequestOutcome } from './handle-request.js'
import { mayBeMcp } from './mcp-shape.js'

type RequestHandling = typeof import('./handle-request.js')

let loading: Promise<RequestHandling> | undefined

/**
 * Loads what deciding a request for a tape takes (keys, codecs, streams, recording, replay) once,
 * on first need: a test file that opens no tape never loads it.
 */
function loadRequestHandling(): Promise<RequestHandling> {
  loading ??= import('./handle-request.js')
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

let prepared = false

/**
 * Has every tape wait, before it opens, for the request handling and the labels that reports give
 * model requests (`model request (gpt-4o)`), which read the request through its provider's codec.
 */
export function prepareBeforeTapes(): void {
  if (prepared) return
  prepared = true
  beforeTapeOpens(async () => {
    const [, exchange] = await Promise.all([loadRequestHandling(), import('./read-exchange.js')])
    exchange.useCodecLabels()
  })
}
