import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createMemoryStore, isReplayMiss, parseCassette, tapeMcpTransport } from '@agent-tape/core'
import { type FakeProvider, startFakeProvider } from '@agent-tape/fake-provider'
import { installHttpBoundary } from '@agent-tape/http'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import OpenAI from 'openai'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { runCli } from '../cli/support/cli.js'
// @ts-expect-error a plain ES module of the test support, without types
import { startHttpWeatherServer } from '../support/mcp/weather-server.mjs'
import { runTaped } from '../support/tape-run.js'

// An agent whose tools live on an MCP server: the model (a loopback fake provider speaking the
// OpenAI wire format) asks for the weather, the agent calls the MCP tool, the model answers.
const boundary = installHttpBoundary()
const store = createMemoryStore()
const SERVER = join(import.meta.dirname, '../support/mcp/weather-server.mjs')
let provider: FakeProvider
let openai: OpenAI

beforeAll(async () => {
  provider = await startFakeProvider({
    reply: (req) => {
      const messages = req.body.messages as { role: string; content: string }[]
      const tool = messages.find((m) => m.role === 'tool')
      if (tool) return { text: `Done: ${tool.content}` }
      const city = /in (\w+)/.exec(messages.at(-1)?.content ?? '')?.[1] ?? 'Paris'
      return { toolCalls: [{ name: 'get_weather', args: { city } }] }
    },
  })
  boundary.addModelEndpoints(provider.url)
  openai = new OpenAI({ apiKey: 'sk-test-dummy', baseURL: provider.openaiBaseURL, maxRetries: 0 })
})
afterAll(() => provider.close())

type Transport = ConstructorParameters<typeof Client>[0] extends never
  ? never
  : Parameters<Client['connect']>[0]

async function agent(question: string, transport: () => Transport, args = (a: Record<string, unknown>) => a) {
  const client = new Client({ name: 'agent', version: '1.0.0' })
  await client.connect(tapeMcpTransport(transport(), { server: 'weather' }))
  try {
    const { tools } = await client.listTools()
    const messages: OpenAI.ChatCompletionMessageParam[] = [{ role: 'user', content: question }]
    for (let step = 0; step < 4; step++) {
      const reply = await openai.chat.completions.create({
        model: 'gpt-4o',
        messages,
        tools: tools.map((t) => ({
          type: 'function' as const,
          function: { name: t.name, parameters: t.inputSchema as Record<string, unknown> },
        })),
      })
      const message = reply.choices[0]!.message
      messages.push(message)
      if (!message.tool_calls?.length) return message.content
      for (const call of message.tool_calls) {
        if (call.type !== 'function') continue
        const result = await client.callTool({
          name: call.function.name,
          arguments: args(JSON.parse(call.function.arguments)),
        })
        const text = (result.content as { text: string }[])[0]!.text
        messages.push({ role: 'tool', tool_call_id: call.id, content: text })
      }
    }
    throw new Error('no answer')
  } finally {
    await client.close()
  }
}

describe('MCP over stdio (the server is a child process)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'agent-tape-mcp-'))
  const started = join(dir, 'started')
  let temperature = '18'
  const stdio = () =>
    new StdioClientTransport({
      command: process.execPath,
      args: [SERVER, 'stdio'],
      env: {
        ...(process.env as Record<string, string>),
        MCP_STARTED_FILE: started,
        WEATHER_TEMP_C: temperature,
      },
    })
  afterAll(() => rmSync(dir, { recursive: true, force: true }))

  it('records each MCP request as a decision, and replays with no server process started', async () => {
    const rec = await runTaped(store, 'stdio.jsonl', 'auto', () => agent('Weather in Paris?', stdio))
    expect(rec.error).toBeUndefined()
    expect(rec.result).toBe('Done: {"city":"Paris","tempC":18}')
    expect(existsSync(started)).toBe(true)
    const cassette = parseCassette((await store.read('stdio.jsonl'))!, 'stdio.jsonl')
    expect(
      cassette.decisions.map(
        (d) => `${d.kind} ${d.step}${d.kind === 'mcp' ? ` ${(d.in as { method: string }).method}` : ''}`,
      ),
    ).toEqual(['mcp 0 initialize', 'mcp 0 tools/list', 'llm 1', 'mcp 1 tools/call', 'llm 2'])
    // Keyed by method and params: no JSON-RPC id, no session.
    expect(cassette.decisions[3]!.in).toEqual({
      server: 'weather',
      method: 'tools/call',
      params: { name: 'get_weather', arguments: { city: 'Paris' } },
    })
    // `show` reads an MCP tool call as a tool call.
    const file = join(dir, 'stdio.jsonl')
    writeFileSync(file, (await store.read('stdio.jsonl'))!)
    const shown = (await runCli(['show', file], dir)).stdout
    expect(shown).toContain('decisions  5: 3 MCP requests, 2 model requests')
    expect(shown).toMatch(/#4 {2}step 1 {2}mcp tools\/call "get_weather"/)
    expect(shown).toContain('    args      {"city":"Paris"}')
    rmSync(started)
    const connections = provider.connections
    const replay = await runTaped(store, 'stdio.jsonl', 'replay', () => agent('Weather in Paris?', stdio))
    expect(replay.failure).toBeUndefined()
    expect(replay.result).toBe(rec.result)
    expect(replay.state).toMatchObject({ status: 'clean', replayed: 5, unused: 0 })
    expect(existsSync(started)).toBe(false)
    expect(provider.connections).toBe(connections)
  })

  it('misses a changed tool argument at its step, with the diff', async () => {
    // A bug in the agent: it now upper-cases the city before calling the tool.
    const moved = await runTaped(store, 'stdio.jsonl', 'replay', () =>
      agent('Weather in Paris?', stdio, (a) => ({ ...a, city: String(a.city).toUpperCase() })),
    )
    expect(isReplayMiss(moved.failure)).toBe(true)
    expect(moved.failure!.message).toContain('Replay miss at step 1, mcp tools/call "get_weather"')
    expect(moved.failure!.message).toContain('params.arguments.city: "Paris" → "PARIS"')
    expect(existsSync(started)).toBe(false)
  })

  it('in live-tools mode, runs the MCP tool for real: unchanged passes, a moved upstream is drift', async () => {
    temperature = '18'
    const same = await runTaped(store, 'stdio.jsonl', 'live-tools', () => agent('Weather in Paris?', stdio))
    expect(same.failure).toBeUndefined()
    expect(same.state.status).toBe('clean')
    temperature = '25'
    const moved = await runTaped(store, 'stdio.jsonl', 'live-tools', () => agent('Weather in Paris?', stdio))
    expect(moved.result).toBe('Done: {"city":"Paris","tempC":18}')
    expect(moved.state.drifted).toEqual(['step 1, mcp tools/call "get_weather"'])
    expect(moved.failure!.message).toContain('Tool drift at step 1, mcp tools/call "get_weather"')
    expect(moved.failure!.message).toContain('\n  args      {"city":"Paris"}\n')
    expect(moved.failure!.message).toContain(
      'result.content[0].text: "{\\"city\\":\\"Paris\\",\\"tempC\\":18}" → "{\\"city\\":\\"Paris\\",\\"tempC\\":25}"',
    )
    expect(moved.failure!.message).toContain('The model would now see a different input')
    temperature = '18'
  })
})

describe('MCP over streamable HTTP (a server on loopback)', () => {
  it('records and replays with the server closed: no connection', async () => {
    const server = await startHttpWeatherServer({ tempC: 18 })
    const url = server.url
    const http = () => new StreamableHTTPClientTransport(url)
    const rec = await runTaped(store, 'http.jsonl', 'auto', () => agent('Weather in Rome?', http))
    expect(rec.error).toBeUndefined()
    expect(rec.result).toBe('Done: {"city":"Rome","tempC":18}')
    const connections = server.connections
    await server.close()
    const replay = await runTaped(store, 'http.jsonl', 'replay', () => agent('Weather in Rome?', http))
    expect(replay.failure).toBeUndefined()
    expect(replay.result).toBe(rec.result)
    expect(replay.state.status).toBe('clean')
    expect(server.connections).toBe(connections)
  })
})

it('answers from the cassette in replay even on a client connected before the tape began', async () => {
  const server = await startHttpWeatherServer({ tempC: 18 })
  const client = new Client(
    { name: 'shared', version: '1.0.0' },
    { capabilities: { roots: { listChanged: true } } },
  )
  // Connected once, outside every tape, as a suite-wide client would be.
  await client.connect(tapeMcpTransport(new StreamableHTTPClientTransport(server.url)))
  try {
    const call = async () =>
      (
        (await client.callTool({ name: 'get_weather', arguments: { city: 'Nice' } })).content as {
          text: string
        }[]
      )[0]!.text
    const rec = await runTaped(store, 'shared.jsonl', 'auto', call)
    expect(rec.result).toBe('{"city":"Nice","tempC":18}')
    server.options.tempC = 30
    const connections = server.connections
    const requests = server.requests
    const replay = await runTaped(store, 'shared.jsonl', 'replay', async () => {
      // A notification sent in replay stays in the process as well.
      await client.notification({ method: 'notifications/roots/list_changed' })
      return call()
    })
    expect(replay.error).toBeUndefined()
    expect(replay.result).toBe('{"city":"Nice","tempC":18}')
    expect(replay.state).toMatchObject({ status: 'clean', replayed: 1 })
    expect(server.connections).toBe(connections)
    expect(server.requests).toBe(requests)
  } finally {
    await client.close()
    await server.close()
  }
})

describe('MCP over streamable HTTP without the wrapper (understood as JSON-RPC)', () => {
  const plain = (url: URL) => () => new StreamableHTTPClientTransport(url)

  /** The agent with a plain transport: the HTTP boundary tapes it. */
  async function plainAgent(question: string, url: URL, args = (a: Record<string, unknown>) => a) {
    const client = new Client({ name: 'agent', version: '1.0.0' })
    await client.connect(plain(url)())
    try {
      const { tools } = await client.listTools()
      expect(tools.map((t) => t.name)).toEqual(['get_weather'])
      const city = /in (\w+)/.exec(question)?.[1] ?? 'Paris'
      const result = await client.callTool({ name: 'get_weather', arguments: args({ city }) })
      return (result.content as { text: string }[])[0]!.text
    } finally {
      await client.close()
    }
  }

  it('records each JSON-RPC request as an mcp decision keyed without its id, and replays with the server closed', async () => {
    const server = await startHttpWeatherServer({ tempC: 18 })
    const url = server.url
    const rec = await runTaped(store, 'plain-http.jsonl', 'auto', () => plainAgent('Weather in Rome?', url))
    expect(rec.error).toBeUndefined()
    expect(rec.result).toBe('{"city":"Rome","tempC":18}')
    const cassette = parseCassette((await store.read('plain-http.jsonl'))!, 'plain-http.jsonl')
    expect(cassette.decisions.map((d) => `${d.kind} ${(d.in as { method: string }).method}`)).toEqual([
      'mcp initialize',
      'mcp tools/list',
      'mcp tools/call',
    ])
    expect(cassette.decisions[2]!.in).toEqual({
      server: 'loopback/mcp',
      method: 'tools/call',
      params: { name: 'get_weather', arguments: { city: 'Rome' } },
    })
    // `show` reads the tool call inside the recorded response.
    const file = join(mkdtempSync(join(tmpdir(), 'agent-tape-mcp-show-')), 'plain-http.jsonl')
    writeFileSync(file, (await store.read('plain-http.jsonl'))!)
    const shown = (await runCli(['show', file], tmpdir())).stdout
    expect(shown).toContain('    args      {"city":"Rome"}')
    expect(shown).toContain('"text":"{\\"city\\":\\"Rome\\",\\"tempC\\":18}"')
    const connections = server.connections
    await server.close()
    const replay = await runTaped(store, 'plain-http.jsonl', 'replay', () =>
      plainAgent('Weather in Rome?', url),
    )
    expect(replay.failure).toBeUndefined()
    expect(replay.result).toBe(rec.result)
    expect(replay.state).toMatchObject({ status: 'clean', replayed: 3, unused: 0 })
    expect(server.connections).toBe(connections)
    // A changed argument misses at its step with the diff, in MCP's own error shape.
    const moved = await runTaped(store, 'plain-http.jsonl', 'replay', () =>
      plainAgent('Weather in Rome?', url, (a) => ({ ...a, city: 'ROME' })),
    )
    expect(isReplayMiss(moved.failure)).toBe(true)
    expect(moved.failure!.message).toContain('Replay miss at step 0, mcp tools/call "get_weather"')
    expect(moved.failure!.message).toContain('params.arguments.city: "Rome" → "ROME"')
  })

  it('in live-tools mode, calls the server for real and reports a changed tool result as drift', async () => {
    const server = await startHttpWeatherServer({ tempC: 18 })
    try {
      await runTaped(store, 'plain-live.jsonl', 'auto', () => plainAgent('Weather in Nice?', server.url))
      const same = await runTaped(store, 'plain-live.jsonl', 'live-tools', () =>
        plainAgent('Weather in Nice?', server.url),
      )
      expect(same.failure).toBeUndefined()
      server.options.tempC = 26
      const moved = await runTaped(store, 'plain-live.jsonl', 'live-tools', () =>
        plainAgent('Weather in Nice?', server.url),
      )
      expect(moved.result).toBe('{"city":"Nice","tempC":18}')
      expect(moved.state.drifted).toEqual(['step 0, mcp tools/call "get_weather"'])
      expect(moved.failure!.message).toContain('"tempC\\":18}" → "{\\"city\\":\\"Nice\\",\\"tempC\\":26}"')
      expect(moved.failure!.message).toContain('\n  args      {"city":"Nice"}\n')
    } finally {
      await server.close()
    }
  })
})

it('answers under the JSON-RPC id of the request being replayed, not the recorded one', async () => {
  const server = await startHttpWeatherServer({ tempC: 18 })
  const url = server.url
  const session = (lists: number) => async () => {
    const client = new Client({ name: 'ids', version: '1.0.0' })
    await client.connect(new StreamableHTTPClientTransport(url))
    try {
      for (let i = 0; i < lists; i++) await client.listTools()
      const result = await client.callTool({ name: 'get_weather', arguments: { city: 'Oslo' } })
      return (result.content as { text: string }[])[0]!.text
    } finally {
      await client.close()
    }
  }
  try {
    // Recorded with two listings first: tools/call was request id 3.
    const rec = await runTaped(store, 'ids.jsonl', 'auto', session(2))
    expect(rec.result).toBe('{"city":"Oslo","tempC":18}')
    await server.close()
    // Replayed with one: tools/call is request id 2, and the client accepts only that.
    const replay = await runTaped(store, 'ids.jsonl', 'replay', session(1), { failOnUnused: false })
    expect(replay.error).toBeUndefined()
    expect(replay.result).toBe(rec.result)
  } finally {
    await server.close()
  }
})

it('replays a server that could not be reached while recording as the same failure', async () => {
  const server = await startHttpWeatherServer({ tempC: 18 })
  const url = server.url
  await server.close()
  const connect = async () => {
    const client = new Client({ name: 'down', version: '1.0.0' })
    try {
      await client.connect(new StreamableHTTPClientTransport(url))
      return 'connected'
    } catch (error) {
      return (error as Error).message
    }
  }
  const rec = await runTaped(store, 'down.jsonl', 'auto', connect)
  expect(rec.result).not.toBe('connected')
  const replay = await runTaped(store, 'down.jsonl', 'replay', connect)
  expect(replay.result).toBe(rec.result)
  expect(replay.state).toMatchObject({ status: 'clean', replayed: 1 })
})
