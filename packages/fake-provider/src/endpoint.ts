import type { IdFactory } from './ids.js'
import type { EndpointName, ReceivedRequest } from './received-request.js'
import type { ResolvedTurn } from './resolve-turn.js'
import type { SseEvent } from './sse.js'
import type { HttpErrorFault, StreamErrorFault } from './turn.js'

/** Everything an endpoint needs to encode one answer. */
export interface TurnContext {
  request: ReceivedRequest
  turn: ResolvedTurn
  /** The model name to report. */
  model: string
  ids: IdFactory
  /** Unix seconds. */
  created: number
}

/** One provider endpoint: how its answers, streams and errors look on the wire. */
export interface Endpoint {
  readonly name: EndpointName
  readonly path: string
  /** Headers the provider sends on every response (request id, version, …). */
  responseHeaders(ids: IdFactory): Record<string, string>
  /** The non-streamed JSON body. */
  json(ctx: TurnContext): unknown
  /** The `stream: true` events, in order. */
  events(ctx: TurnContext): SseEvent[]
  /** The in-band error event of a stream; `sent` is the number of events already sent. */
  streamError(fault: StreamErrorFault, sent: number): SseEvent
  /** The JSON body of an HTTP error. */
  errorBody(fault: HttpErrorFault, requestId: string): unknown
  /** The header that carries the request id (`x-request-id` or `request-id`). */
  readonly requestIdHeader: string
}
