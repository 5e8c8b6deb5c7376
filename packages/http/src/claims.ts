import { claimingTapeCount, currentTape } from '@agent-tape/core/context'
import { classifyUrl, passesThrough } from './endpoints.js'
import type { BoundaryConfig } from './handle-request.js'

/**
 * Whether the tape owns a request to `url`: it is not loopback traffic, and the current tape
 * records or replays (or, outside every tape, some tape is running and the request cannot be
 * attributed). Shared by the MSW predicate and the guard on `fetch` functions that skip the
 * interception, so both draw the line where `handleRequest` does.
 */
export function claimsUrl(
  url: URL,
  config: Pick<BoundaryConfig, 'modelEndpoints' | 'allowHosts' | 'tapeHosts'>,
): boolean {
  if (passesThrough(classifyUrl(url, config.modelEndpoints, config.allowHosts, config.tapeHosts)))
    return false
  const tape = currentTape()
  return tape ? tape.action !== 'passthrough' : claimingTapeCount() > 0
}

/**
 * Whether `handleRequest` will answer this request rather than let it pass: so that an
 * MSW handler matches only what the tape owns and leaves the rest to `onUnhandledRequest`.
 */
export function claimsRequest(request: Request, config: BoundaryConfig): boolean {
  return claimsUrl(new URL(request.url), config)
}
