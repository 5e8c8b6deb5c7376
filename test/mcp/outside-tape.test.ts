import { existsSync, rmSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { RUNNERS, type Runner, testFile } from '../runners/runners.js'
// @ts-expect-error a plain ES module of the test support, without types
import { startHttpWeatherServer } from '../support/mcp/weather-server.mjs'

// An MCP client connected in `beforeAll`, outside every tape, as a suite-wide client would be:
// in a run whose tapes replay, no tape can answer its handshake, and starting the server would
// start it for a replay. Each runner runs it in a fixture project, beside the same client
// connected inside its tape, which records and replays with no process started.
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

/** The lines that import `beforeAll` and `afterAll` where the runner does not make them globals. */
const hooks = (runner: Runner) =>
  runner.name === 'Vitest' ? ["import { afterAll, beforeAll } from 'vitest'"] : []

const outside = (runner: Runner) =>
  testFile(runner, [
    ...hooks(runner),
    ...CONNECT,
    ...['stdio', 'http'].flatMap((kind) => [
      `describe('${kind} connected in beforeAll', () => {`,
      "  const client = new Client({ name: 'agent', version: '1.0.0' })",
      `  beforeAll(() => client.connect(${kind}()))`,
      '  afterAll(() => client.close())',
      `  it.tape('${kind}-shared', async () => {`,
      "    expect(await weather(client, 'Rome')).toContain('Rome')",
      '  })',
      '})',
    ]),
  ])

const inside = (runner: Runner) =>
  testFile(runner, [
    ...CONNECT,
    ...['stdio', 'http'].flatMap((kind) => [
      `it.tape('${kind}-own', async () => {`,
      "  const client = new Client({ name: 'agent', version: '1.0.0' })",
      `  await client.connect(${kind}())`,
      '  expect(await weather(client, \'Oslo\')).toBe(\'{"city":"Oslo","tempC":18}\')',
      '  await client.close()',
      '})',
    ]),
  ])

/** The refusal, as the runner prints it for the MCP server `server`. */
const refusal = (server: string, mode: string) =>
  `Cannot connect to MCP server ${server} outside a tape: the client connected before any tape began (in beforeAll, or as a module loaded), and this run's tapes replay (${mode})`

describe.concurrent.each(RUNNERS)('$name', { timeout: 120_000 }, (runner) => {
  it('refuses a client connected in beforeAll while the tapes may replay (no process, no connection), and records and replays one connected inside its tape', async () => {
    const server = await startHttpWeatherServer({ tempC: 18 })
    const project = runner.project()
    const started = join(project.dir, 'started')
    const env = {
      FAKE_PROVIDER_URL: 'http://127.0.0.1:9',
      MCP_URL: String(server.url),
      MCP_STARTED_FILE: started,
    }
    try {
      project.write('test/mcp-outside.test.ts', outside(runner))
      project.write('test/mcp-inside.test.ts', inside(runner))
      const files = 'test/mcp-outside.test.ts test/mcp-inside.test.ts'
      // Locally (`auto`): the tapes connected inside record; the shared client is refused, as a
      // cassette that exists would replay.
      const local = await project.runTests(files, env)
      expect(local.code, local.output).toBe(1)
      expect(local.output).toContain(
        refusal('"weather"', 'mode "auto", which replays every cassette that exists'),
      )
      expect(local.output).toContain(
        refusal(`${server.url}`, 'mode "auto", which replays every cassette that exists'),
      )
      expect(local.output).not.toContain('ECONNREFUSED')
      expect(project.cassettes()).toEqual([
        'test/__cassettes__/mcp-inside.test.ts/http-own.jsonl',
        'test/__cassettes__/mcp-inside.test.ts/stdio-own.jsonl',
      ])
      expect(project.read('test/__cassettes__/mcp-inside.test.ts/stdio-own.jsonl')).toContain(
        '"method":"initialize"',
      )
      // The server process started for the recording only.
      expect(existsSync(started)).toBe(true)
      rmSync(started)
      const requests = server.requests
      await server.close()
      // In CI: the tapes connected inside replay with no process and no connection; the shared
      // client is refused with the same advice, not a bare ECONNREFUSED.
      const ci = await project.runTests(files, { ...env, CI: 'true' })
      expect(ci.code, ci.output).toBe(1)
      expect(ci.output).toContain(refusal('"weather"', 'mode "replay"'))
      expect(ci.output).toContain(refusal(`${server.url}`, 'mode "replay"'))
      expect(ci.output).toContain(
        'Connect the client inside the tape that uses it (in the test body, or in a helper the body awaits)',
      )
      // The refusal names the setup tape, the opt-in that connects once for the block.
      expect(ci.output).toContain(
        "To connect once for a file or a describe block, connect in a setup tape: beforeAll.tape(() => client.connect(transport)) records the handshake in a cassette of its own, and each test's tape uses the connected client",
      )
      expect(ci.output).not.toContain('ECONNREFUSED')
      expect(ci[runner.summaryStream]).toContain(
        'agent-tape  2 tapes: 2 replayed cleanly, 0 recorded, 0 diverged',
      )
      expect(existsSync(started)).toBe(false)
      expect(server.requests).toBe(requests)
    } finally {
      await server.close()
      project.dispose()
    }
  })
})
