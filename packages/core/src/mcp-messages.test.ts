import { expect, it } from 'vitest'
import { createMemoryStore } from './cassette-store.js'
import { isJsonRpcResponse, MCP_ERROR_NAME, mcpInput, recordedMcpError } from './mcp-messages.js'
import { openTape } from './open-tape.js'

it('keys an MCP request by server, method and params, without _meta, and without params when it has none', () => {
  expect(mcpInput('weather', 'tools/list', undefined)).toStrictEqual({
    server: 'weather',
    method: 'tools/list',
  })
  expect(
    mcpInput('weather', 'tools/call', {
      name: 'get_weather',
      arguments: { city: 'Oslo' },
      _meta: { progressToken: 7 },
    }),
  ).toStrictEqual({
    server: 'weather',
    method: 'tools/call',
    params: { name: 'get_weather', arguments: { city: 'Oslo' } },
  })
  // Kept as sent: params with no _meta, and params that are not an object.
  const params = { cursor: 'next' }
  expect(mcpInput('s', 'tools/list', params).params).toBe(params)
  expect(mcpInput('s', 'm', null)).toStrictEqual({ server: 's', method: 'm', params: null })
  expect(mcpInput('s', 'm', [1, 2])).toStrictEqual({ server: 's', method: 'm', params: [1, 2] })
  expect(mcpInput('s', 'm', 'text')).toStrictEqual({ server: 's', method: 'm', params: 'text' })
})

it('records an MCP request without params as the wrapped transport did, byte for byte', async () => {
  const record = async (input: unknown) => {
    const store = createMemoryStore()
    const tape = await openTape({ id: 't', cassettePath: 'c.jsonl', store, mode: 'update', env: {} })
    const begun = tape.begin('mcp', input)
    if (begun.action !== 'record') throw new Error(`expected a recording, got ${begun.action}`)
    begun.complete({ out: { tools: [] } }, 0)
    await tape.finish()
    return store.files['c.jsonl']!.split('\n')
      .slice(1)
      .join('\n')
      .replace(/"ms":\d+/, '"ms":0')
      .replace(/"at":\d+/, '"at":0')
  }
  // The transport's input before `mcpInput`: `params` present and undefined.
  const before = await record({ server: 'weather', method: 'tools/list', params: undefined })
  expect(await record(mcpInput('weather', 'tools/list', undefined))).toBe(before)
  expect(before).toContain('"in":{"server":"weather","method":"tools/list"}')
})

it('tells a JSON-RPC response from a request, a notification and what is no message at all', () => {
  expect(isJsonRpcResponse({ jsonrpc: '2.0', id: 1, result: {} })).toBe(true)
  expect(isJsonRpcResponse({ jsonrpc: '2.0', id: 1, error: { code: -32603, message: 'no' } })).toBe(true)
  expect(isJsonRpcResponse({ jsonrpc: '2.0', id: 1, method: 'tools/list' })).toBe(false)
  expect(isJsonRpcResponse({ jsonrpc: '2.0', method: 'notifications/progress', result: {} })).toBe(false)
  expect(isJsonRpcResponse({ jsonrpc: '2.0', id: 1 })).toBe(false)
  for (const value of [null, undefined, 'result', 42, ['result']])
    expect(isJsonRpcResponse(value)).toBe(false)
})

it('records a JSON-RPC error under one name, with its code', () => {
  expect(recordedMcpError({ code: -32602, message: 'Unknown tool' })).toStrictEqual({
    name: MCP_ERROR_NAME,
    message: 'Unknown tool',
    code: -32602,
  })
  expect(MCP_ERROR_NAME).toBe('McpError')
})
