import { claimingTapeCount, currentTape, isInsideDecision } from '@agent-tape/core/context'
import { findCodec } from './codecs/index.js'
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

/**
 * Whether a request that passes through (loopback that is not a model endpoint) must still be
 * seen by `handleRequest`, because it may be a model call to a local server nobody declared: the
 * current tape records or replays, and a codec owns its path. `handleRequest` reads the body and
 * refuses it, or lets it pass. For the clients that decide before the request is read (undici's
 * global dispatchers, node:http2 sessions).
 */
export function mayBeUndeclaredModel(
  method: string,
  url: URL,
  config: Pick<BoundaryConfig, 'modelEndpoints' | 'allowHosts' | 'tapeHosts'>,
): boolean {
  const tape = currentTape()
  if (!tape || tape.action === 'passthrough' || isInsideDecision()) return false
  if (findCodec(method.toUpperCase(), url.pathname) === undefined) return false
  return classifyUrl(url, config.modelEndpoints, config.allowHosts, config.tapeHosts) === 'loopback'
}
