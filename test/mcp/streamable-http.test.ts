import { type ChildProcess, spawn } from 'node:child_process'
import { join } from 'node:path'
import { createMemoryStore, parseCassette } from '@agent-tape/core'
import { installHttpBoundary } from '@agent-tape/http'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
// @ts-expect-error a plain ES module of the test support, without types
import { startHttpWeatherServer } from '../support/mcp/weather-server.mjs'
import { runTaped } from '../support/tape-run.js'

// MCP over streamable HTTP with the SDK's own transport, unwrapped: the HTTP boundary tapes it.
const boundary = installHttpBoundary()
const store = createMemoryStore()
const SERVER = join(import.meta.dirname, '../support/mcp/weather-server.mjs')

/** The weather server in a process of its own, as a user's server runs. */
async function serverProcess(...args: string[]): Promise<{ url: URL; child: ChildProcess }> {
  const child = spawn(process.execPath, [SERVER, 'http', ...args], { stdio: ['ignore', 'pipe', 'inherit'] })
  const url = await new Promise<URL>((resolve, reject) => {
    child.stdout!.once('data', (line) => resolve(new URL(String(line).trim())))
    child.once('exit', (code) => reject(new Error(`the MCP server exited with ${code}`)))
  })
  return { url, child }
}

/** Calls the tool once per city, and closes the client the moment it has the last result. */
async function calls(url: URL, cities: readonly string[]): Promise<string[]> {
  const client = new Client({ name: 'agent', version: '1.0.0' })
  await client.connect(new StreamableHTTPClientTransport(url))
  const texts: string[] = []
  for (const city of cities) {
    const result = await client.callTool({ name: 'get_weather', arguments: { city } })
    texts.push((result.content as { text: string }[])[0]!.text)
  }
  await client.close()
  return texts
}

describe('a client that closes right after its last call', () => {
  let server: { url: URL; child: ChildProcess }
  beforeAll(async () => {
    server = await serverProcess()
  })
  afterAll(() => {
    server.child.kill()
  })

  it('records every tape at once, 20 runs of 3 tapes, each ending with the response it waited for', async () => {
    // The close aborts the request whose stream the tape still reads. That stream ends at the
    // response the request waited for; waiting past it for the socket stalled some tapes until
    // pendingTimeoutMs (10 s; 1 s here, so that a stall fails fast).
    const failures: string[] = []
    for (let run = 0; run < 20; run++) {
      for (const city of ['Rome', 'Oslo', 'Lima']) {
        const file = `closes-${city}.jsonl`
        try {
          const rec = await runTaped(store, file, 'update', () => calls(server.url, [city]), {
            pendingTimeoutMs: 1000,
          })
          expect(rec.result).toEqual([`{"city":"${city}","tempC":18}`])
        } catch (error) {
          failures.push(`run ${run + 1}, ${city}: ${(error as Error).message}`)
          continue
        }
        // Recorded as the server answered, not cut by the client's close.
        const decisions = parseCassette(store.files[file]!, file).decisions
        const last = decisions.at(-1)!.out as { body: Record<string, unknown> }
        expect(Object.keys(last.body)).toEqual(['sse'])
      }
    }
    expect(failures).toEqual([])
  })
})

describe('live-tools against a stateful server (sessions)', () => {
  it('gives the client the live session: a server restarted since the recording runs every call, and only a moved result is drift', async () => {
    const recording = await startHttpWeatherServer({ tempC: 18, stateful: true })
    const rec = await runTaped(store, 'stateful.jsonl', 'auto', () => calls(recording.url, ['Rome', 'Oslo']))
    expect(rec.error).toBeUndefined()
    // The recorded answers name the session of that server, long gone.
    const recorded = parseCassette(store.files['stateful.jsonl']!, 'stateful.jsonl').decisions
    const recordedSession = (recorded[0]!.out as { headers: Record<string, string> }).headers[
      'mcp-session-id'
    ]
    expect(recordedSession).toMatch(/^[0-9a-f-]{36}$/)
    await recording.close()
    const server = await startHttpWeatherServer({ tempC: 18, stateful: true })
    try {
      const same = await runTaped(store, 'stateful.jsonl', 'live-tools', () =>
        calls(server.url, ['Rome', 'Oslo']),
      )
      expect(same.error).toBeUndefined()
      expect(same.failure).toBeUndefined()
      expect(same.state).toMatchObject({ status: 'clean', drifted: [] })
      expect(server.sessions).not.toContain(recordedSession)
      server.options.tempC = 25
      const moved = await runTaped(store, 'stateful.jsonl', 'live-tools', () =>
        calls(server.url, ['Rome', 'Oslo']),
      )
      // Both calls reached the server in the live session; each moved result is reported.
      expect(moved.result).toEqual(['{"city":"Rome","tempC":18}', '{"city":"Oslo","tempC":18}'])
      expect(moved.state.drifted).toEqual([
        'step 0, mcp tools/call "get_weather"',
        'step 0, mcp tools/call "get_weather"',
      ])
      expect(moved.failure!.message).not.toContain('No valid session ID')
    } finally {
      await server.close()
    }
  })
})

describe('an MCP server on a host that is also a model endpoint', () => {
  it('is taped as MCP, keyed by method and params, not as a model request', async () => {
    const server = await startHttpWeatherServer({ tempC: 18 })
    // Any port on loopback serves models, as a local model and a test server would be declared.
    const remove = boundary.addModelEndpoints('http://127.0.0.1:*')
    try {
      const rec = await runTaped(store, 'model-host.jsonl', 'auto', () => calls(server.url, ['Kyiv']))
      expect(rec.error).toBeUndefined()
      const decisions = parseCassette(store.files['model-host.jsonl']!, 'model-host.jsonl').decisions
      expect(decisions.map((d) => `${d.kind} ${(d.in as { method?: string }).method}`)).toEqual([
        'mcp initialize',
        'mcp tools/call',
      ])
      expect(decisions[1]!.in).toEqual({
        server: 'loopback/mcp',
        method: 'tools/call',
        params: { name: 'get_weather', arguments: { city: 'Kyiv' } },
      })
      const requests = server.requests
      await server.close()
      const replay = await runTaped(store, 'model-host.jsonl', 'replay', () => calls(server.url, ['Kyiv']))
      expect(replay.state).toMatchObject({ status: 'clean', replayed: 2 })
      expect(replay.result).toEqual(rec.result)
      expect(server.requests).toBe(requests)
    } finally {
      remove()
      await server.close()
    }
  })
})
