import { createMemoryStore, isAgentTapeError } from '@agent-tape/core'
import { setRunMode } from '@agent-tape/core/context'
import { installHttpBoundary } from '@agent-tape/http'
import { installedBoundary } from '@agent-tape/http/internal'
import { afterAll, beforeAll, expect, it } from 'vitest'
import { type CountingServer, startCountingServer } from '../support/counting-server.js'
import { runTaped } from '../support/tape-run.js'

// Before a file's first tape what serves tapes is not loaded (test/http/first-tape.test.ts): what
// the stand-ins do on their own then, in a fresh process, in a run whose tapes replay.
const boundary = installHttpBoundary()
const loaded = () => installedBoundary()?.loaded() === true

// A library that wraps `fetch` after the setup (a logger, a tracing SDK) stays in front of it.
const thin = globalThis.fetch
const wrapped: string[] = []
globalThis.fetch = (input, init) => {
  wrapped.push(String(input instanceof Request ? input.url : input))
  return thin(input, init)
}
const library = globalThis.fetch

let server: CountingServer
beforeAll(async () => {
  server = await startCountingServer('mcp')
  setRunMode('replay')
})
afterAll(async () => {
  setRunMode(undefined)
  await server.close()
})

const mcpHandshake = () =>
  fetch(`${server.origin}/mcp`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 0,
      method: 'initialize',
      params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'a', version: '1' } },
    }),
  })

it('passes a request that is not MCP before the first tape, loading nothing', async () => {
  const before = server.requests
  const answer = await (await fetch(`${server.origin}/health`)).json()
  expect(answer).toEqual({ server: 'mcp', path: '/health' })
  expect(server.requests).toBe(before + 1)
  expect(loaded()).toBe(false)
})

it('refuses an MCP handshake before the first tape of a replaying run, unsent, by loading the interception', async () => {
  const before = server.requests
  const error = await mcpHandshake().then(
    () => undefined,
    (e: unknown) => e,
  )
  // fetch fails with agent-tape's error, or with a TypeError that carries it as its cause.
  const refusal = isAgentTapeError(error) ? error : (error as { cause?: unknown } | undefined)?.cause
  expect(isAgentTapeError(refusal) && refusal.code).toBe('ERR_TAPE_USAGE')
  expect((refusal as Error).message).toContain(
    `Cannot connect to MCP server ${server.origin}/mcp outside a tape`,
  )
  expect(server.requests).toBe(before)
  expect(loaded()).toBe(true)
})

it('keeps a library that wrapped fetch after the setup in front of the interception, and in place once disposed', async () => {
  boundary.addModelEndpoints(server.origin)
  const store = createMemoryStore()
  const call = async () => (await fetch(`${server.origin}/v1/data`)).json()
  const recorded = await runTaped(store, 'wrapped.jsonl', 'update', call)
  expect(recorded.state).toMatchObject({ status: 'recorded', recorded: 1 })
  const before = server.requests
  wrapped.length = 0
  const replayed = await runTaped(store, 'wrapped.jsonl', 'replay', call)
  expect(replayed.result).toEqual({ server: 'mcp', path: '/v1/data' })
  expect(server.requests).toBe(before)
  expect(wrapped).toEqual([`${server.origin}/v1/data`])
  await boundary.dispose()
  expect(globalThis.fetch).toBe(library)
})
