import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { expect, it } from 'vitest'
import { useRecordedFixture } from '../runners/recorded-fixture.js'
import { VITEST } from '../runners/runners.js'

// What only the Vitest plugin does; what both runners do alike is in test/runners/contract.test.ts.
const fixture = useRecordedFixture(VITEST)
const { env, copy } = fixture

it('replays under the threads pool, and sums up sharded runs once they are merged', async () => {
  const project = copy()
  const threads = await project.runTests('--pool=threads', env())
  expect(threads.code, threads.output).toBe(0)
  expect(threads.output).toContain('agent-tape  13 tapes: 13 replayed cleanly')
  for (const shard of ['1/2', '2/2']) {
    const run = await project.runTests(`--shard=${shard} --reporter=blob`, env())
    expect(run.code, run.output).toBe(0)
    expect(run.output).not.toContain('agent-tape ')
  }
  const merged = await project.runTests('--merge-reports', env())
  expect(merged.code, merged.output).toBe(0)
  expect(merged.output).toContain('agent-tape  13 tapes: 13 replayed cleanly, 0 recorded, 0 diverged')
})

it('runs only the it.tape.only tape, and lists only it without calling the others obsolete', async () => {
  const project = copy()
  project.write(
    'test/agent.test.ts',
    project.read('test/agent.test.ts').replace("it.tape('weather-paris'", "it.tape.only('weather-paris'"),
  )
  const before = project.snapshot('test')
  const run = await project.runTests('test/agent.test.ts', env())
  expect(run.code, run.output).toBe(0)
  expect(run.output).toContain('Tests  1 passed | 2 skipped (3)')
  expect(run.output).toMatch(
    new RegExp(
      [
        'agent-tape {2}1 tape: 1 replayed cleanly, 0 recorded, 0 diverged',
        '',
        ' {2}tape {32}mode {2}result {2}replayed {2}recorded {2}missed {2}unused {2}tokens +cost',
        // The tokens of the three model answers replayed, and their price.
        ' {2}test/agent\\.test\\.ts > weather-paris {2}auto {2}clean {8}5/5 {9}- {7}0 {7}0 +[\\d,]+ +\\$[\\d.]+',
        '',
        ' {2}decisions: 5 replayed, 0 recorded, 0 missed, 0 unused',
      ].join('\n'),
    ),
  )
  expect(run.output).not.toContain('refund')
  expect(run.output).not.toContain('Obsolete')
  expect(project.snapshot('test')).toEqual(before)
})

const DATABASE_TEST = [
  "import net from 'node:net'",
  "import { expect, it } from '@agent-tape/vitest'",
  '',
  '// db.internal stands for a database on another host; it resolves to a loopback server.',
  "it.tape('database', async () => {",
  '  const reply = await new Promise((resolve, reject) => {',
  '    const socket = net.connect({',
  "      host: 'db.internal',",
  '      port: Number(process.env.DB_PORT),',
  "      lookup: (_h, o, done) => (o.all ? done(null, [{ address: '127.0.0.1', family: 4 }]) : done(null, '127.0.0.1', 4)),",
  '    })',
  "    socket.on('data', (data) => resolve(String(data)))",
  "    socket.on('error', reject)",
  '  })',
  "  expect(reply).toBe('pong')",
  '})',
  '',
].join('\n')

it('refuses a connection no boundary records while a tape runs, and lets allowHosts through', async () => {
  const net = await import('node:net')
  const server = net.createServer((socket) => socket.end('pong'))
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  let connections = 0
  server.on('connection', () => connections++)
  const port = (server.address() as { port: number }).port
  try {
    const project = copy()
    project.write('test/database.test.ts', DATABASE_TEST)
    const refused = await project.runTests('test/database.test.ts', { ...env(), DB_PORT: String(port) })
    expect(refused.code).toBe(1)
    expect(refused.output).toContain(
      `[agent-tape] Blocked a connection to db.internal:${port} from a raw TCP socket (net.connect): tape "test/database.test.ts > database" is recording; agent-tape answers fetch, undici's global dispatcher, node:http/https and node:http2, not this client`,
    )
    expect(connections).toBe(0)
    project.write(
      'vitest.config.ts',
      [
        "import { agentTape } from '@agent-tape/vitest/plugin'",
        "import { defineConfig } from 'vitest/config'",
        '',
        'export default defineConfig({',
        "  plugins: [agentTape({ modelEndpoints: [process.env.FAKE_PROVIDER_URL + '/v1'], allowHosts: ['db.internal'] })],",
        '})',
        '',
      ].join('\n'),
    )
    const allowed = await project.runTests('test/database.test.ts', { ...env(), DB_PORT: String(port) })
    expect(allowed.code, allowed.output).toBe(0)
    const replayed = await project.runTests('test/database.test.ts', {
      ...env(),
      DB_PORT: String(port),
      CI: 'true',
    })
    expect(replayed.code, replayed.output).toBe(0)
    expect(connections).toBe(2)
  } finally {
    server.close()
  }
})

const MSW_CONFIG = [
  "import { agentTape } from '@agent-tape/vitest/plugin'",
  "import { defineConfig } from 'vitest/config'",
  '',
  'export default defineConfig({',
  "  plugins: [agentTape({ interception: 'msw', modelEndpoints: [process.env.FAKE_PROVIDER_URL + '/v1'] })],",
  "  test: { setupFiles: ['./test/msw-setup.ts'] },",
  '})',
  '',
].join('\n')

const MSW_SETUP = [
  "import { tapeHandlers } from '@agent-tape/http/msw'",
  "import { HttpResponse, http } from 'msw'",
  "import { setupServer } from 'msw/node'",
  "import { afterAll } from 'vitest'",
  '',
  '// The team mocks its own API; the tape handlers come first, and take only model requests.',
  'const server = setupServer(',
  '  ...tapeHandlers(),',
  "  http.get('https://accounts.internal.example/api/me', () => HttpResponse.json({ id: 'u_1', plan: 'pro' })),",
  ')',
  "server.listen({ onUnhandledRequest: 'error' })",
  'afterAll(() => server.close())',
  '',
].join('\n')

const MSW_TEST = [
  "import { expect, it } from '@agent-tape/vitest'",
  "import { ask } from '../src/agent.js'",
  '',
  "it.tape('team api and model', async () => {",
  "  const me = await (await fetch('https://accounts.internal.example/api/me')).json()",
  "  expect(me).toEqual({ id: 'u_1', plan: 'pro' })",
  "  expect(await ask('Weather in Oslo?')).toBe('echo: Weather in Oslo?')",
  '})',
  '',
].join('\n')

it("uses the team's MSW server as the interception: its mocks answer, the model is taped, and replay opens no connection", async () => {
  const project = copy()
  project.write('vitest.config.ts', MSW_CONFIG)
  project.write('test/msw-setup.ts', MSW_SETUP)
  project.write('test/team.test.ts', MSW_TEST)
  const before = fixture.provider.connections
  const record = await project.runTests('test/team.test.ts', env())
  expect(record.code, record.output).toBe(0)
  expect(fixture.provider.connections).toBeGreaterThan(before)
  const cassette = project.read('test/__cassettes__/team.test.ts/team api and model.jsonl')
  // The team's mocked API is its own business: only the model request is on the tape.
  expect(cassette.trim().split('\n')).toHaveLength(2)
  expect(cassette).not.toContain('accounts.internal.example')
  const connections = fixture.provider.connections
  const replay = await project.runTests('test/team.test.ts', { ...env(), CI: 'true' })
  expect(replay.code, replay.output).toBe(0)
  expect(replay.output).toContain('1 tape: 1 replayed cleanly, 0 recorded, 0 diverged')
  expect(fixture.provider.connections).toBe(connections)
})

it('takes every chained modifier of the test API on it.tape, each test claiming its name once', async () => {
  const project = copy()
  project.write(
    'test/modifiers.test.ts',
    readFileSync(join(import.meta.dirname, 'fixtures/modifiers.test.ts'), 'utf8'),
  )
  const run = await project.runTests('test/modifiers.test.ts', env())
  expect(run.code, run.output).toBe(0)
  expect(run.output).not.toContain('Duplicate tape name')
  expect(run.output).toContain('Tests  8 passed | 2 expected fail | 3 skipped | 1 todo (14)')
  const recorded = project.cassettes().filter((c) => c.includes('modifiers.test.ts'))
  expect(recorded.map((c) => c.split('/').at(-1))).toEqual([
    'concurrent-for-a.jsonl',
    'concurrent-skipif.jsonl',
    'fails.jsonl',
    'runif-for-1.jsonl',
    'runif-for-2.jsonl',
    'runif-true.jsonl',
    'sequential-runif.jsonl',
    'skipif-concurrent.jsonl',
    'skipif-fails.jsonl',
    'skipif-false.jsonl',
  ])
  // The replay finds every cassette, and a skipped tape's cassette is not obsolete.
  const replay = await project.runTests('test/modifiers.test.ts', env())
  expect(replay.code, replay.output).toBe(0)
  expect(replay.output).toContain('10 tapes: 10 replayed cleanly, 0 recorded, 0 diverged')
  expect(replay.output).not.toContain('Obsolete')
})
