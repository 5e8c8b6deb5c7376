import { type EventMessage, exceptionMessage } from './eventstream.js'
import type { IdFactory } from './ids.js'
import type { ReceivedRequest } from './received-request.js'
import type { HttpErrorFault, StreamErrorFault } from './turn.js'

/** What Bedrock Runtime's endpoints share: the model in the path, errors, headers, padding. */

const ERROR_TYPE: Record<number, string> = {
  400: 'ValidationException',
  403: 'AccessDeniedException',
  404: 'ResourceNotFoundException',
  408: 'ModelTimeoutException',
  424: 'ModelErrorException',
  429: 'ThrottlingException',
  500: 'InternalServerException',
  503: 'ServiceUnavailableException',
}

function errorType(fault: HttpErrorFault): string {
  return (
    fault.type ??
    ERROR_TYPE[fault.status] ??
    (fault.status >= 500 ? 'InternalServerException' : 'ValidationException')
  )
}

/** `/model/{modelId}/{operation}`: the operation, and the model id decoded. */
export function bedrockPath(path: string): { model: string; operation: string } | undefined {
  const match = /^\/model\/([^/]+)\/([a-z-]+)$/.exec(path)
  return match ? { model: decodeURIComponent(match[1]!), operation: match[2]! } : undefined
}

export const modelOf = (request: ReceivedRequest): string | undefined => bedrockPath(request.path)?.model

/** Bedrock's error body: the message alone; the type travels in `x-amzn-errortype`. */
export function bedrockErrorBody(fault: HttpErrorFault): unknown {
  return { message: fault.message ?? `${errorType(fault).replace(/Exception$/, '')} error` }
}

export function bedrockErrorHeaders(fault: HttpErrorFault): Record<string, string> {
  return { 'x-amzn-errortype': `${errorType(fault)}:http://internal.amazon.com/coral/com.amazon.bedrock/` }
}

/** The exception a stream fails with (default `modelStreamErrorException`). */
export function bedrockStreamError(fault: StreamErrorFault): EventMessage {
  return exceptionMessage(fault.type ?? 'modelStreamErrorException', {
    message: fault.message ?? 'The model stream was interrupted.',
  })
}

export function bedrockResponseHeaders(ids: IdFactory): Record<string, string> {
  const hex = ids.hex(32)
  const uuid = `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`
  return { 'x-amzn-requestid': uuid }
}

const PADDING = 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789'

/** The `p` field Bedrock pads each streamed event with: a prefix of the alphabet, of varying length. */
export function padding(ids: IdFactory): string {
  return PADDING.slice(0, 1 + (Number.parseInt(ids.hex(2), 16) % PADDING.length))
}
