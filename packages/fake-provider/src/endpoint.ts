import type { IdFactory } from './ids.js'
import type { EndpointName, ReceivedRequest } from './received-request.js'
import type { ResolvedTurn } from './resolve-turn.js'
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

/** How a streamed answer is framed on the wire (default: server-sent events). */
export interface StreamWire {
  contentType: string
  /** One event as the bytes written for it. */
  encode(event: unknown): string | Uint8Array
}

/** One provider endpoint: how its answers, streams and errors look on the wire. */
export interface Endpoint {
  readonly name: EndpointName
  /** Whether a `POST` to this path is for this endpoint. */
  matches(path: string): boolean
  /** Whether the request asks for a stream (default: `stream: true` in the body). */
  wantsStream?(request: ReceivedRequest): boolean
  /** The model the request names, when it is not `model` in the body (a path segment). */
  modelOf?(request: ReceivedRequest): string | undefined
  /** How streamed events are framed (default: server-sent events, as `SseEvent`s). */
  readonly wire?: StreamWire
  /** Headers the provider sends on every response (request id, version, …). */
  responseHeaders(ids: IdFactory): Record<string, string>
  /** The non-streamed JSON body. */
  json(ctx: TurnContext): unknown
  /** How JSON bodies (answers and errors) are written (default: `JSON.stringify`, compact). */
  jsonText?(payload: unknown): string
  /** The streamed events, in order (`SseEvent`s unless the endpoint has its own `wire`). */
  events(ctx: TurnContext): readonly unknown[]
  /** The in-band error event of a stream; `sent` is the number of events already sent. */
  streamError(fault: StreamErrorFault, sent: number): unknown
  /** The JSON body of an HTTP error. */
  errorBody(fault: HttpErrorFault, requestId: string): unknown
  /** Headers of an HTTP error, when the provider sends its type in one. */
  errorHeaders?(fault: HttpErrorFault): Record<string, string>
  /** The header that carries the request id (`x-request-id` or `request-id`). */
  readonly requestIdHeader: string
}
