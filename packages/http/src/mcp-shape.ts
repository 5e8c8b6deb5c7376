/**
 * Whether a request may be MCP over streamable HTTP, by its method and headers alone: the
 * protocol version the SDKs send after the handshake, or a JSON POST that accepts an event stream
 * (every MCP client's, the handshake's included). `readMcpRequest` decides from the body.
 */
export function mayBeMcp(method: string, headers: Pick<Headers, 'get' | 'has'>): boolean {
  if (headers.has('mcp-protocol-version')) return true
  return (
    method.toUpperCase() === 'POST' &&
    /json/i.test(headers.get('content-type') ?? '') &&
    /text\/event-stream/i.test(headers.get('accept') ?? '')
  )
}

type FetchInput = Parameters<typeof fetch>[0]

/** {@link mayBeMcp} for the arguments of a `fetch` call, without reading (or locking) the body. */
export function fetchMayBeMcp(input: FetchInput, init: RequestInit | undefined): boolean {
  const request = input instanceof Request ? input : undefined
  const method = init?.method ?? request?.method ?? 'GET'
  const headers = new Headers(init?.headers ?? request?.headers)
  return mayBeMcp(method, headers)
}
