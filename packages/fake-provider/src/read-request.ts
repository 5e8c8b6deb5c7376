import type { IncomingMessage } from 'node:http'
import type { Http2ServerRequest } from 'node:http2'
import type { EndpointName, ReceivedRequest } from './received-request.js'

/** The request body is kept apart from `body` so a parse failure can be answered as a 400. */
export interface ReadResult {
  request: ReceivedRequest
  /** Set when the body is not empty and not a JSON object. */
  invalidJson: boolean
}

function flattenHeaders(req: IncomingMessage | Http2ServerRequest): Record<string, string> {
  const headers: Record<string, string> = {}
  for (const [name, value] of Object.entries(req.headers)) {
    // HTTP/2's pseudo-headers (`:path`, `:method`, …) are the request line, not headers.
    if (value !== undefined && !name.startsWith(':'))
      headers[name] = Array.isArray(value) ? value.join(', ') : value
  }
  return headers
}

/** Reads the whole body of `req` and describes it. */
export async function readRequest(
  req: IncomingMessage | Http2ServerRequest,
  index: number,
  endpointOf: (method: string, path: string) => EndpointName | undefined,
): Promise<ReadResult> {
  const chunks: Buffer[] = []
  for await (const chunk of req) chunks.push(chunk as Buffer)
  const rawBody = Buffer.concat(chunks).toString('utf8')
  const url = new URL(req.url ?? '/', 'http://127.0.0.1')
  const method = req.method ?? 'GET'
  let body: Record<string, unknown> = {}
  let invalidJson = false
  if (rawBody.trim() !== '') {
    try {
      const parsed: unknown = JSON.parse(rawBody)
      if (parsed !== null && typeof parsed === 'object' && !Array.isArray(parsed)) {
        body = parsed as Record<string, unknown>
      } else invalidJson = true
    } catch {
      invalidJson = true
    }
  }
  const request: ReceivedRequest = {
    index,
    method,
    path: url.pathname,
    search: url.search,
    headers: flattenHeaders(req),
    body,
    rawBody,
    endpoint: endpointOf(method, url.pathname),
  }
  return { request, invalidJson }
}
