// What both MCP boundaries share: the wrapped transport (`mcp-transport.ts`) and MCP over
// streamable HTTP seen unwrapped by the HTTP boundary (`@agent-tape/http`'s `mcp-http.ts`). Both
// key a request the same way, so a recording made through one reads the same in every report.
import type { RecordedError } from './cassette-format.js'

/** A JSON-RPC 2.0 message: a request (method and id), a notification (method) or a response (id). */
export interface McpMessage {
  jsonrpc?: '2.0'
  id?: string | number
  method?: string
  params?: Record<string, unknown>
  result?: unknown
  error?: { code: number; message: string; data?: unknown }
}

/** The input of an MCP request's decision (kind `mcp`): not the JSON-RPC id, not the session. */
export interface McpInput {
  /** The server's name: the transport's `server` option, or the HTTP server's host and path. */
  server: string
  method: string
  params?: Record<string, unknown>
}

/**
 * The decision input of an MCP request. `_meta` carries progress tokens and tracing: nothing
 * that decides the answer, so it is left out.
 */
export function mcpInput(server: string, method: string, params: unknown): McpInput {
  const input: McpInput = { server, method }
  const kept = withoutMeta(params)
  if (kept !== undefined) input.params = kept as Record<string, unknown>
  return input
}

function withoutMeta(params: unknown): unknown {
  if (typeof params !== 'object' || params === null || !('_meta' in params)) return params
  const { _meta: _, ...rest } = params as Record<string, unknown>
  return rest
}

/** Whether a JSON-RPC message is a response: no method, and a result or an error. */
export function isJsonRpcResponse(message: unknown): message is McpMessage {
  if (typeof message !== 'object' || message === null) return false
  const m = message as McpMessage
  return m.method === undefined && ('result' in m || 'error' in m)
}

/** The name a recorded MCP error has, whichever boundary recorded it. */
export const MCP_ERROR_NAME = 'McpError'

/** A JSON-RPC error as the cassette records it. */
export function recordedMcpError(error: { code: number; message: string }): RecordedError {
  return { name: MCP_ERROR_NAME, message: error.message, code: error.code }
}
