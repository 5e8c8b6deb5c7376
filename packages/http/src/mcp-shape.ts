/**
 * Whether a request may be MCP over streamable HTTP, by its method and headers alone: the
 * protocol version the SDKs send after the handshake, or a JSON POST that accepts an event stream
 * (every MCP client's, the handshake's included). `readMcpRequest` decides from the body.
 */
export function mayBeMcp(method: string, headers: Headers): boolean {
  if (headers.has('mcp-protocol-version')) return true
  return (
    method.toUpperCase() === 'POST' &&
    /json/i.test(headers.get('content-type') ?? '') &&
    /text\/event-stream/i.test(headers.get('accept') ?? '')
  )
}
