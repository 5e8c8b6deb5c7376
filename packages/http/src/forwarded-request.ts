/**
 * Headers about the connection between a client and the boundary (RFC 9110 §7.6.1), which a
 * request sent on by the boundary must not carry: the boundary's own connection to the server is
 * fetch's to manage. Passed on, `connection: close` (which node:http sends without a keep-alive
 * agent) makes fetch take a response cut off mid-way for a complete one, and a recording would
 * keep a cut stream as if it had ended.
 */
const HOP_BY_HOP = ['connection', 'keep-alive', 'proxy-connection']

/** The request as the boundary sends it on: the same, without the headers of the client's connection. */
export function forwardedRequest(request: Request): Request {
  if (!HOP_BY_HOP.some((name) => request.headers.has(name))) return request
  const headers = new Headers(request.headers)
  for (const name of HOP_BY_HOP) headers.delete(name)
  return new Request(request, { headers })
}
