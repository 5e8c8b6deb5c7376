import { existsSync, readFileSync, rmSync } from 'node:fs'
import { join } from 'node:path'
import { type FakeProvider, startFakeProvider } from '@agent-tape/fake-provider'
import { describe, expect, it } from 'vitest'
import { RUNNERS, type Runner, testFile } from '../runners/runners.js'
// @ts-expect-error a plain ES module of the test support, without types
import { startHttpWeatherServer } from '../support/mcp/weather-server.mjs'

// A setup tape (`beforeAll.tape`): an MCP client connected once for a describe block, as users
// write it, over stdio (the wrapped transport, a real server process) and over streamable HTTP
// (unwrapped, a real server on loopback). The handshake is the setup cassette's, each test's
// calls its own cassette's; a replay starts no process and opens no connection, for the whole
// file, one test picked with -t, or a shard.
const SERVER = join(import.meta.dirname, '../support/mcp/weather-server.mjs')

const CONNECT = [
  "import { Client } from '@modelcontextprotocol/sdk/client/index.js'",
  "import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js'",
  "import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'",
  "import { tapeMcpTransport } from '@agent-tape/core'",
  'const stdio = () =>',
  '  tapeMcpTransport(',
  '    new StdioClientTransport({',
  '      command: process.execPath,',
  `      args: [${JSON.stringify(SERVER)}, 'stdio'],`,
  '      env: { ...process.env, MCP_STARTED_FILE: process.env.MCP_STARTED_FILE },',
  '    }),',
  "    { server: 'weather' },",
  '  )',
  'const http = () => new StreamableHTTPClientTransport(new URL(process.env.MCP_URL))',
  'async function weather(client, city) {',
  "  const result = await client.callTool({ name: 'get_weather', arguments: { city } })",
  '  return result.content[0].text',
  '}',
]

/**
 * Where `beforeAll` and `afterAll` come from: agent-tape's Vitest entry; Jest's globals, or the
 * typed exports of `@agent-tape/jest` (`imported`).
 */
const hooks = (runner: Runner, imported: boolean) =>
  runner.name === 'Vitest'
    ? ["import { afterAll, beforeAll } from '@agent-tape/vitest'"]
    : imported
      ? ["import { afterAll, beforeAll } from '@agent-tape/jest'"]
      : []

const KINDS = ['stdio', 'http'] as const

/** A describe block per transport, its client connected by a setup tape, and a tape per city. */
const setupFile = (runner: Runner, cities: readonly string[], clientName = 'agent', imported = false) =>
  testFile(runner, [
    ...hooks(runner, imported),
    ...CONNECT,
    ...KINDS.flatMap((kind) => [
      `describe('${kind}', () => {`,
      `  const client = new Client({ name: '${clientName}', version: '1.0.0' })`,
      // A server process starting on a loaded machine may take longer than a hook's default.
      `  beforeAll.tape(() => client.connect(${kind}()), 30_000)`,
      '  afterAll(() => client.close())',
      ...cities.map((city) =>
        [
          `  it.tape('${city.toLowerCase()}', async () => {`,
          `    expect(await weather(client, '${city}')).toBe('{"city":"${city}","tempC":18}')`,
          // A test that records after a replayed setup starts the server itself.
          '  }, 30_000)',
        ].join('\n'),
      ),
      '})',
    ]),
  ])

const CASSETTES = (file: string, cities: readonly string[]) =>
  KINDS.flatMap((kind) => [
    `test/__cassettes__/${file}/${kind}/beforeAll.jsonl`,
    ...cities.map((city) => `test/__cassettes__/${file}/${kind}/${city.toLowerCase()}.jsonl`),
  ]).sort()

/**
 * A setup tape after the tests (`afterAll.tape`): in each describe block, the client's last call
 * and its close; in the file's, a plain `fetch` to the model endpoint (no SDK, no test's tape
 * around it), which only the runner's interception of the file tapes: it must still be there
 * when the file's last hook runs.
 */
const teardownFile = (runner: Runner) =>
  testFile(runner, [
    ...hooks(runner, false),
    ...CONNECT,
    ...KINDS.flatMap((kind) => [
      `describe('${kind}', () => {`,
      "  const client = new Client({ name: 'agent', version: '1.0.0' })",
      `  beforeAll.tape(() => client.connect(${kind}()), 30_000)`,
      "  it.tape('oslo', async () => {",
      `    expect(await weather(client, 'Oslo')).toBe('{"city":"Oslo","tempC":18}')`,
      '  }, 30_000)',
      '  afterAll.tape(async () => {',
      `    expect(await weather(client, 'Rome')).toBe('{"city":"Rome","tempC":18}')`,
      '    await client.close()',
      '  }, 30_000)',
      '})',
    ]),
    'afterAll.tape(async () => {',
    "  const response = await fetch(process.env.FAKE_PROVIDER_URL + '/v1/chat/completions', {",
    "    method: 'POST',",
    "    headers: { 'content-type': 'application/json', authorization: 'Bearer sk-test' },",
    "    body: JSON.stringify({ model: 'gpt-4o', messages: [{ role: 'user', content: 'Summarize the run.' }] }),",
    '  })',
    '  const body = await response.json()',
    "  expect(body.choices[0].message.content).toBe('Hello.')",
    '}, 30_000)',
  ])

/** The kinds of the decisions a cassette holds, in order. */
function kinds(path: string): string[] {
  return readFileSync(path, 'utf8')
    .split('\n')
    .slice(1)
    .filter(Boolean)
    .map((line) => (JSON.parse(line) as { kind: string }).kind)
}

/** The methods of the MCP decisions a cassette holds, in order. */
function methods(path: string): string[] {
  return readFileSync(path, 'utf8')
    .split('\n')
    .filter((line) => line.includes('"kind":"mcp"'))
    .map((line) => /"method":"([^"]+)"/.exec(line)?.[1] ?? '?')
}

describe.concurrent.each(RUNNERS)('$name', { timeout: 180_000 }, (runner) => {
  it('records the handshake once in the setup cassette and each test its own calls; replays the file, one test (-t) and each shard with no process started and no connection', async () => {
    const server = await startHttpWeatherServer({ tempC: 18 })
    const project = runner.project()
    const started = join(project.dir, 'started')
    const env = {
      FAKE_PROVIDER_URL: 'http://127.0.0.1:9',
      MCP_URL: String(server.url),
      MCP_STARTED_FILE: started,
    }
    try {
      project.write('test/mcp-a.test.ts', setupFile(runner, ['Oslo', 'Rome']))
      project.write('test/mcp-b.test.ts', setupFile(runner, ['Lima'], 'agent', true))
      const files = 'test/mcp-a.test.ts test/mcp-b.test.ts'
      const recording = await project.runTests(files, env)
      expect(recording.code, recording.output).toBe(0)
      expect(project.cassettes()).toEqual(
        [...CASSETTES('mcp-a.test.ts', ['Oslo', 'Rome']), ...CASSETTES('mcp-b.test.ts', ['Lima'])].sort(),
      )
      for (const kind of KINDS) {
        // The handshake is the setup's; a test's cassette holds its own call only.
        expect(
          methods(join(project.dir, `test/__cassettes__/mcp-a.test.ts/${kind}/beforeAll.jsonl`)),
        ).toEqual(['initialize'])
        expect(methods(join(project.dir, `test/__cassettes__/mcp-a.test.ts/${kind}/oslo.jsonl`))).toEqual([
          'tools/call',
        ])
      }
      expect(recording[runner.summaryStream]).toContain('test/mcp-a.test.ts > stdio > beforeAll')
      // One server process per describe block of each file, for the recording.
      expect(readFileSync(started, 'utf8').trim().split('\n')).toHaveLength(2)
      rmSync(started)

      const before = { connections: server.connections, requests: server.requests }
      const replayed = Date.now()
      const ci = await project.runTests(files, { ...env, CI: 'true' })
      const replayMs = Date.now() - replayed
      expect(ci.code, ci.output).toBe(0)
      expect(ci[runner.summaryStream]).toContain(
        'agent-tape  10 tapes: 10 replayed cleanly, 0 recorded, 0 diverged',
      )
      expect(existsSync(started)).toBe(false)
      expect({ connections: server.connections, requests: server.requests }).toEqual(before)
      console.log(`${runner.name}: replay of two files with setup tapes (10 tapes) took ${replayMs} ms`)

      // One test of the file: its describe block's setup replays with it, nothing else runs.
      const one = await project.runTests(`test/mcp-a.test.ts -t '^stdio rome$'`, { ...env, CI: 'true' })
      expect(one.code, one.output).toBe(0)
      expect(one.output).toContain(runner.tests({ passed: 1, skipped: 3 }))
      expect(one[runner.summaryStream]).toContain(
        'agent-tape  2 tapes: 2 replayed cleanly, 0 recorded, 0 diverged',
      )
      expect(one[runner.summaryStream]).not.toContain('obsolete')

      // Each shard replays the setup of the files it runs.
      const shards = [
        await project.runTests(`${files} --shard=1/2`, { ...env, CI: 'true' }),
        await project.runTests(`${files} --shard=2/2`, { ...env, CI: 'true' }),
      ]
      for (const shard of shards) expect(shard.code, shard.output).toBe(0)
      const summaries = shards.map((s) => s[runner.summaryStream])
      expect(summaries.some((s) => s.includes('agent-tape  6 tapes: 6 replayed cleanly'))).toBe(true)
      expect(summaries.some((s) => s.includes('agent-tape  4 tapes: 4 replayed cleanly'))).toBe(true)
      expect(existsSync(started)).toBe(false)
      expect({ connections: server.connections, requests: server.requests }).toEqual(before)
    } finally {
      await server.close()
      project.dispose()
    }
  })

  it('records a test added to the block while its setup replays: the recorded handshake is made again for real, once, and the setup cassette stays as it was', async () => {
    const server = await startHttpWeatherServer({ tempC: 18 })
    const project = runner.project()
    const started = join(project.dir, 'started')
    const env = {
      FAKE_PROVIDER_URL: 'http://127.0.0.1:9',
      MCP_URL: String(server.url),
      MCP_STARTED_FILE: started,
    }
    try {
      project.write('test/mcp-a.test.ts', setupFile(runner, ['Oslo']))
      const recording = await project.runTests('test/mcp-a.test.ts', env)
      expect(recording.code, recording.output).toBe(0)
      rmSync(started)
      const setup = KINDS.map((kind) =>
        project.read(`test/__cassettes__/mcp-a.test.ts/${kind}/beforeAll.jsonl`),
      )
      project.write('test/mcp-a.test.ts', setupFile(runner, ['Oslo', 'Rome']))
      const local = await project.runTests('test/mcp-a.test.ts', env)
      expect(local.code, local.output).toBe(0)
      expect(local[runner.summaryStream]).toContain(
        'agent-tape  6 tapes: 4 replayed cleanly, 2 recorded, 0 diverged',
      )
      expect(
        KINDS.map((kind) => project.read(`test/__cassettes__/mcp-a.test.ts/${kind}/beforeAll.jsonl`)),
      ).toEqual(setup)
      for (const kind of KINDS) {
        expect(methods(join(project.dir, `test/__cassettes__/mcp-a.test.ts/${kind}/rome.jsonl`))).toEqual([
          'tools/call',
        ])
      }
      // The stdio server started once, for the test that recorded.
      expect(readFileSync(started, 'utf8').trim().split('\n')).toHaveLength(1)
      rmSync(started)
      const before = { connections: server.connections, requests: server.requests }
      const ci = await project.runTests('test/mcp-a.test.ts', { ...env, CI: 'true' })
      expect(ci.code, ci.output).toBe(0)
      expect(existsSync(started)).toBe(false)
      expect({ connections: server.connections, requests: server.requests }).toEqual(before)
    } finally {
      await server.close()
      project.dispose()
    }
  })

  it('records a test added to the block while its setup replays over streamable HTTP to a stateful server, without tapeMcpTransport: the recorded handshake opens a live session, once', async () => {
    let server = await startHttpWeatherServer({ tempC: 18, stateful: true })
    const project = runner.project()
    const env = { FAKE_PROVIDER_URL: 'http://127.0.0.1:9', MCP_URL: String(server.url) }
    try {
      project.write('test/mcp-a.test.ts', setupFile(runner, ['Oslo']))
      const recording = await project.runTests('test/mcp-a.test.ts', env)
      expect(recording.code, recording.output).toBe(0)
      const setup = project.read('test/__cassettes__/mcp-a.test.ts/http/beforeAll.jsonl')
      // The server restarted: the session the setup cassette holds is gone.
      await server.close()
      server = await startHttpWeatherServer({ tempC: 18, stateful: true })
      env.MCP_URL = String(server.url)
      project.write('test/mcp-a.test.ts', setupFile(runner, ['Oslo', 'Rome']))
      const local = await project.runTests('test/mcp-a.test.ts', env)
      expect(local.code, local.output).toBe(0)
      expect(local.output).not.toContain('No valid session ID')
      expect(local[runner.summaryStream]).toContain(
        'agent-tape  6 tapes: 4 replayed cleanly, 2 recorded, 0 diverged',
      )
      expect(project.read('test/__cassettes__/mcp-a.test.ts/http/beforeAll.jsonl')).toBe(setup)
      expect(methods(join(project.dir, 'test/__cassettes__/mcp-a.test.ts/http/rome.jsonl'))).toEqual([
        'tools/call',
      ])
      // The handshake made again (initialize, notifications/initialized), then Rome's call.
      expect(server.requests).toBe(3)
      const before = { connections: server.connections, requests: server.requests }
      const ci = await project.runTests('test/mcp-a.test.ts', { ...env, CI: 'true' })
      expect(ci.code, ci.output).toBe(0)
      expect({ connections: server.connections, requests: server.requests }).toEqual(before)
    } finally {
      await server.close()
      project.dispose()
    }
  })

  it('records what an afterAll.tape asks, of a describe block (an MCP call) and of the file (a plain fetch to the model), in afterAll.jsonl, and replays it with no process started and no connection', async () => {
    const server = await startHttpWeatherServer({ tempC: 18 })
    let provider: FakeProvider | undefined
    const project = runner.project()
    try {
      provider = await startFakeProvider({ reply: () => ({ text: 'Hello.' }) })
      const started = join(project.dir, 'started')
      const env = {
        FAKE_PROVIDER_URL: provider.url,
        MCP_URL: String(server.url),
        MCP_STARTED_FILE: started,
      }
      project.write('test/teardown.test.ts', teardownFile(runner))
      const recording = await project.runTests('test/teardown.test.ts', env)
      expect(recording.code, recording.output).toBe(0)
      expect(project.cassettes()).toEqual(
        [
          ...KINDS.flatMap((kind) =>
            ['afterAll', 'beforeAll', 'oslo'].map(
              (name) => `test/__cassettes__/teardown.test.ts/${kind}/${name}.jsonl`,
            ),
          ),
          'test/__cassettes__/teardown.test.ts/afterAll.jsonl',
        ].sort(),
      )
      for (const kind of KINDS) {
        expect(
          methods(join(project.dir, `test/__cassettes__/teardown.test.ts/${kind}/afterAll.jsonl`)),
        ).toEqual(['tools/call'])
      }
      // The file's afterAll.tape ran while the interception was still there: its request is its decision.
      expect(kinds(join(project.dir, 'test/__cassettes__/teardown.test.ts/afterAll.jsonl'))).toEqual(['llm'])
      expect(provider.requests).toHaveLength(1)
      expect(recording[runner.summaryStream]).toContain('test/teardown.test.ts > http > afterAll')
      expect(recording[runner.summaryStream]).toContain('test/teardown.test.ts > afterAll')
      rmSync(started)

      const before = {
        connections: server.connections,
        requests: server.requests,
        model: provider.connections,
        modelRequests: provider.requests.length,
      }
      const ci = await project.runTests('test/teardown.test.ts', { ...env, CI: 'true' })
      expect(ci.code, ci.output).toBe(0)
      expect(ci[runner.summaryStream]).toContain(
        'agent-tape  7 tapes: 7 replayed cleanly, 0 recorded, 0 diverged',
      )
      expect(existsSync(started)).toBe(false)
      expect({
        connections: server.connections,
        requests: server.requests,
        model: provider.connections,
        modelRequests: provider.requests.length,
      }).toEqual(before)
    } finally {
      await server.close()
      await provider?.close()
      project.dispose()
    }
  })

  it('misses a changed setup input with the diff, naming the hook and the command that re-records it', async () => {
    const server = await startHttpWeatherServer({ tempC: 18 })
    const project = runner.project()
    const env = { FAKE_PROVIDER_URL: 'http://127.0.0.1:9', MCP_URL: String(server.url) }
    try {
      project.write('test/mcp-a.test.ts', setupFile(runner, ['Oslo']))
      const recording = await project.runTests('test/mcp-a.test.ts', env)
      expect(recording.code, recording.output).toBe(0)
      const before = { connections: server.connections, requests: server.requests }
      project.write('test/mcp-a.test.ts', setupFile(runner, ['Oslo'], 'agent-v2'))
      const ci = await project.runTests('test/mcp-a.test.ts', { ...env, CI: 'true' })
      expect(ci.code, ci.output).toBe(1)
      expect(ci.output).toContain('[agent-tape] In beforeAll.tape of describe "stdio": Replay miss at step 0')
      expect(ci.output).toContain('[agent-tape] In beforeAll.tape of describe "http": Replay miss at step 0')
      expect(ci.output).toContain('cassette  test/__cassettes__/mcp-a.test.ts/stdio/beforeAll.jsonl')
      expect(ci.output).toContain('params.clientInfo.name: "agent" → "agent-v2"')
      expect(ci.output).toContain(
        `re-record this block: ${runner.rerecord.start} test/mcp-a.test.ts -t '^stdio ' ${runner.rerecord.end}`,
      )
      expect(ci.output).not.toContain('re-record this test')
      expect({ connections: server.connections, requests: server.requests }).toEqual(before)
    } finally {
      await server.close()
      project.dispose()
    }
  })
})
