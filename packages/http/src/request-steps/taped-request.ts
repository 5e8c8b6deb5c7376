import type { ReservedRequest, Tape } from '@agent-tape/core/internal'
import type { RequestClass } from '../endpoints.js'
import type { BoundaryConfig } from '../handle-request.js'

/** A request that belongs to a tape, as every step of deciding it reads it (see `handleRequest`). */
export interface TapedRequest {
  request: Request
  /** The request's URL, parsed once. */
  url: URL
  requestClass: RequestClass
  tape: Tape
  config: BoundaryConfig
  /** Sends the request to the network without intercepting it again. */
  perform: (request: Request) => Promise<Response>
  /** What a recording reads its times from (default `performance.now`; see `performAndRecord`). */
  clock?: () => number
  /** The place the run held for the request as it was sent (see `ReservedRequest`). */
  reserved?: ReservedRequest
}
