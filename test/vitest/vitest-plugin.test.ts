import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import type { FakeProvider } from '@agent-tape/fake-provider'
import { afterAll, beforeAll, expect, it } from 'vitest'
import { envHash } from '../support/env-hash.js'
import { CITY_AGENT, startCityProvider, VitestProject } from './support/vitest-project.js'

// One recording of the `agent` fixture, copied by every test: the recording run is the
// first scenario, and each later scenario starts from its cassettes.
let provider: FakeProvider
let recorded: VitestProject
let recordRun: { code: number | null; output: string }
const env = () => ({ FAKE_PROVIDER_URL: provider.url })
const projects: VitestProject[] = []

function copy(): VitestProject {
  const project = new VitestProject(recorded)
  projects.push(project)
  return project
}

const count = (text: string, needle: string) => text.split(needle).length - 1

const CASSETTES = [
  'test/__cassettes__/agent.test.ts/refund.jsonl',
  'test/__cassettes__/agent.test.ts/weather-paris.jsonl',
  ...Array.from({ length: 10 }, (_, i) => `test/__cassettes__/concurrent.test.ts/parallel-${i}.jsonl`),
]

beforeAll(async () => {
  provider = await startCityProvider('fixtures')
  recorded = new VitestProject('agent', CITY_AGENT)
  projects.push(recorded)
  recordRun = await recorded.vitest('run', env())
}, 60_000)

afterAll(async () => {
  await provider.close()
  for (const project of projects) project.dispose()
})

it('records every tape on the first run, one cassette per tape beside the test file', () => {
  expect(recordRun.code, recordRun.output).toBe(0)
  expect(recorded.cassettes()).toEqual(CASSETTES)
  expect(recordRun.output).toContain('Tests  13 passed (13)')
  expect(recordRun.output).toContain('agent-tape  12 tapes: 0 replayed cleanly, 12 recorded, 0 diverged')
  expect(recordRun.output).toContain(
    '  test/agent.test.ts > billing > refund  auto  recorded         -         5       -       -',
  )
  expect(recordRun.output).toContain('  decisions: 0 replayed, 30 recorded, 0 missed, 0 unused')
  const header = JSON.parse(recorded.read(CASSETTES[0]!).split('\n')[0]!)
  expect(header.test).toBe('test/agent.test.ts > billing > refund')
})

it('replays on the second run with no connection to the model, and summarizes it (also as Markdown)', async () => {
  const project = copy()
  const before = project.snapshot()
  const connections = provider.connections
  project.write('step-summary.md', '')
  const run = await project.vitest('run', { ...env(), GITHUB_STEP_SUMMARY: `${project.dir}/step-summary.md` })
  expect(run.code, run.output).toBe(0)
  expect(provider.connections - connections).toBe(0)
  expect(run.output).toContain('agent-tape  12 tapes: 12 replayed cleanly, 0 recorded, 0 diverged')
  expect(run.output).toContain(
    '  test/agent.test.ts > weather-paris     auto  clean        5/5         -       0       0',
  )
  expect(run.output).toContain(
    '  test/concurrent.test.ts > parallel-7   auto  clean        2/2         -       0       0',
  )
  expect(run.output).toContain('  decisions: 30 replayed, 0 recorded, 0 missed, 0 unused')
  // Two agent runs of 3 model requests, ten echo requests: usage as the fake model reported it.
  expect(run.output).toMatch(/ {2}tokens replayed instead of spent: [\d,]+ \([\d,]+ in, [\d,]+ out\)/)
  const { 'step-summary.md': markdown, ...after } = project.snapshot()
  expect(after).toEqual(before)
  expect(markdown).toContain('### agent-tape\n\n**12 tapes: 12 replayed cleanly, 0 recorded, 0 diverged**')
  expect(markdown).toContain('| `test/agent.test.ts > billing > refund` | auto | clean | 5/5 | - | 0 | 0 |')
})

it('fails a prompt edit once per test, with the field diff and the command that re-records it', async () => {
  const project = copy()
  const before = project.snapshot('test')
  project.write(
    'src/prompt.ts',
    "export const SYSTEM_PROMPT = 'You answer questions about cities, briefly.'\n",
  )
  const run = await project.vitest('run test/agent.test.ts', env())
  expect(run.code).toBe(1)
  expect(run.output).toContain('Tests  2 failed | 1 passed (3)')
  const report = [
    "[agent-tape] Replay miss at step 1, model request (gpt-4o): the run asked for a decision that was never recorded. If the change is intended, re-record this test: npx vitest run test/agent.test.ts -t '^weather-paris$' -- --update-cassettes.",
    '',
    '  cassette  test/__cassettes__/agent.test.ts/weather-paris.jsonl',
  ].join('\n')
  expect(count(run.output, report)).toBe(1)
  expect(
    count(run.output, "re-record this test: npx vitest run test/agent.test.ts -t '^billing refund$'"),
  ).toBe(1)
  expect(count(run.output, 'Input changed (recorded → now):')).toBe(2)
  expect(run.output).toContain(
    '    body.messages[0].content: "You answer questions about cities." → "You answer questions about cities, briefly."',
  )
  expect(run.output).toContain(
    '  test/agent.test.ts > weather-paris     auto  diverged       0/5         -       1       -',
  )
  expect(project.snapshot('test')).toEqual(before)
  // The report names the command that opens the run next to its recording; the run is kept there.
  const view =
    'npx agent-tape view test/__cassettes__/agent.test.ts/weather-paris.jsonl --run .agent-tape-cache/runs/test/__cassettes__/agent.test.ts/weather-paris.jsonl'
  expect(count(run.output, `  view      ${view}\n`)).toBe(1)
  const kept = project.read('.agent-tape-cache/runs/test/__cassettes__/agent.test.ts/weather-paris.jsonl')
  expect(kept.trimEnd().split('\n')).toHaveLength(2)
  expect(kept).toContain('You answer questions about cities, briefly.')
  const opened = await project.run(`${view} -o view.html`)
  expect(opened.code, opened.output).toBe(0)
  expect(opened.output).toBe('view.html\n')
  expect(project.read('view.html')).toContain('"verdict":"diverged at decision 1: 0 the same, 1 missed')
})

it('writes the divergence view of each diverged test into viewDir, and the step summary points at them', async () => {
  const project = copy()
  project.write(
    'vitest.config.ts',
    project.read('vitest.config.ts').replace('agentTape({', "agentTape({ viewDir: 'agent-tape-views',"),
  )
  project.write(
    'src/prompt.ts',
    "export const SYSTEM_PROMPT = 'You answer questions about cities, briefly.'\n",
  )
  project.write('step-summary.md', '')
  const run = await project.vitest('run test/agent.test.ts', {
    ...env(),
    GITHUB_STEP_SUMMARY: `${project.dir}/step-summary.md`,
    GITHUB_SERVER_URL: 'https://github.com',
    GITHUB_REPOSITORY: 'acme/agents',
    GITHUB_RUN_ID: '42',
  })
  expect(run.code).toBe(1)
  const pages = [
    'agent-tape-views/test/__cassettes__/agent.test.ts/refund.html',
    'agent-tape-views/test/__cassettes__/agent.test.ts/weather-paris.html',
  ]
  expect(run.output).toContain(
    [
      '  Divergence views (2): each diverged run next to its recording, one page to open in a browser:',
      `    test/agent.test.ts > weather-paris: ${pages[1]}`,
      `    test/agent.test.ts > billing > refund: ${pages[0]}`,
    ].join('\n'),
  )
  for (const page of pages) expect(project.read(page)).toMatch(/^<!doctype html>/)
  expect(project.read('step-summary.md')).toContain(
    "  Divergence views (2): each diverged run next to its recording, one page to open in a browser, in [this run's artifacts](https://github.com/acme/agents/actions/runs/42#artifacts) when the job uploads the view folder:\n" +
      `- \`test/agent.test.ts > weather-paris\`: ${pages[1]}`,
  )
})

it('re-records only the selected test with the printed command, leaving every other cassette untouched', async () => {
  const project = copy()
  project.write(
    'src/prompt.ts',
    "export const SYSTEM_PROMPT = 'You answer questions about cities, briefly.'\n",
  )
  const failed = await project.vitest('run', env())
  const command = /re-record this test: (npx vitest run .*'\^weather-paris\$' -- --update-cassettes)\./.exec(
    failed.output,
  )?.[1]
  expect(command).toBe("npx vitest run test/agent.test.ts -t '^weather-paris$' -- --update-cassettes")
  const before = project.snapshot('test')
  const update = await project.run(command!, env())
  expect(update.code, update.output).toBe(0)
  expect(update.output).toContain('agent-tape  1 tape: 0 replayed cleanly, 1 recorded, 0 diverged')
  const after = project.snapshot('test')
  const changed = Object.keys(after).filter((path) => after[path] !== before[path])
  expect(changed).toEqual(['test/__cassettes__/agent.test.ts/weather-paris.jsonl'])
  expect(after[changed[0]!]).toContain('You answer questions about cities, briefly.')
  const replay = await project.vitest('run test/agent.test.ts', env())
  expect(replay.output).toContain('  test/agent.test.ts > weather-paris     auto  clean          5/5')
  expect(replay.output).toContain('  test/agent.test.ts > billing > refund  auto  diverged       0/5')
})

it('in CI, a missing cassette fails its test without writing anything, and the update flag is refused', async () => {
  const project = copy()
  project.remove('test/__cassettes__/agent.test.ts/refund.jsonl')
  const before = project.snapshot()
  const run = await project.vitest('run', { ...env(), CI: 'true' })
  expect(run.code).toBe(1)
  expect(run.output).toContain(
    '[agent-tape] No cassette for test "test/agent.test.ts > billing > refund": test/__cassettes__/agent.test.ts/refund.jsonl does not exist, and mode "replay" (CI is set) never records. Run the test locally without CI to record it (mode "auto" records missing cassettes), then commit the file.',
  )
  expect(run.output).toContain('Tests  1 failed | 12 passed (13)')
  expect(run.output).toContain('  test/agent.test.ts > billing > refund  replay  error ERR_TAPE_NO_CASSETTE')
  expect(project.snapshot()).toEqual(before)
  const update = await project.vitest('run -- --update-cassettes', { ...env(), CI: 'true' })
  expect(update.code).toBe(1)
  expect(update.output).toContain(
    '[agent-tape] Refusing to re-record cassettes in CI: mode "update" was requested (by --update-cassettes) while CI is set, and CI runs must only replay. Re-record locally and commit the cassettes, or set AGENT_TAPE_ALLOW_CI_RECORDING=1 for a job that is meant to record.',
  )
  expect(project.snapshot()).toEqual(before)
})

it('reports a damaged cassette with its file and line, and leaves it as it was', async () => {
  const project = copy()
  const path = 'test/__cassettes__/agent.test.ts/refund.jsonl'
  const lines = project.read(path).split('\n')
  lines[2] = '{"seq":2,"key":'
  project.write(path, lines.join('\n'))
  const damaged = project.read(path)
  const run = await project.vitest('run test/agent.test.ts', env())
  expect(run.code).toBe(1)
  expect(run.output).toMatch(
    /CassetteCorruptError: \[agent-tape\] Cannot load cassette test\/__cassettes__\/agent\.test\.ts\/refund\.jsonl \(line 3\): /,
  )
  expect(count(run.output, 'Cannot load cassette')).toBe(1)
  expect(run.output).toContain('Tests  1 failed | 2 passed (3)')
  expect(project.read(path)).toBe(damaged)
})

it('rejects two tapes with one name in a file before any of them runs', async () => {
  const project = copy()
  project.write(
    'test/dup.test.ts',
    [
      "import { describe, it } from '@agent-tape/vitest'",
      "it.tape('same', async ({ tape }) => { await tape.tool('t', {}, () => 1) })",
      "describe('group', () => { it.tape.skip('same', async () => {}) })",
      '',
    ].join('\n'),
  )
  const run = await project.vitest('run test/dup.test.ts', env())
  expect(run.code).toBe(1)
  expect(run.output).toContain(
    '[agent-tape] Duplicate tape name "same" in test/dup.test.ts: the tests "same" and "group > same" would share one cassette. Give each tape in a file its own name.',
  )
  expect(project.cassettes()).toEqual(CASSETTES)
})

it('lists obsolete cassettes without deleting them, and deletes them only with -- --prune-cassettes', async () => {
  const project = copy()
  project.write('test/__cassettes__/agent.test.ts/renamed-away.jsonl', '')
  project.write('test/__cassettes__/deleted.test.ts/gone.jsonl', '')
  const run = await project.vitest('run test/agent.test.ts', env())
  expect(run.code, run.output).toBe(0)
  expect(run.output).toContain(
    [
      '  Obsolete cassettes (2): no test uses them any more. Delete them, or prune them with -- --prune-cassettes:',
      '    test/__cassettes__/agent.test.ts/renamed-away.jsonl',
      '    test/__cassettes__/deleted.test.ts/gone.jsonl',
    ].join('\n'),
  )
  expect(project.cassettes()).toHaveLength(14)
  const prune = await project.vitest('run test/agent.test.ts -- --prune-cassettes', env())
  expect(prune.output).toContain('  Pruned 2 obsolete cassettes:')
  expect(project.cassettes()).toEqual(CASSETTES)
})

it('replays under the threads pool, and sums up sharded runs once they are merged', async () => {
  const project = copy()
  const threads = await project.vitest('run --pool=threads', env())
  expect(threads.code, threads.output).toBe(0)
  expect(threads.output).toContain('agent-tape  12 tapes: 12 replayed cleanly')
  for (const shard of ['1/2', '2/2']) {
    const run = await project.vitest(`run --shard=${shard} --reporter=blob`, env())
    expect(run.code, run.output).toBe(0)
    expect(run.output).not.toContain('agent-tape ')
  }
  const merged = await project.vitest('run --merge-reports', env())
  expect(merged.code, merged.output).toBe(0)
  expect(merged.output).toContain('agent-tape  12 tapes: 12 replayed cleanly, 0 recorded, 0 diverged')
})

// The scenarios below write a test file of their own into the copy, so the counts above stay.
const UNITS_TEST = [
  "import { expect, it } from '@agent-tape/vitest'",
  "import { ask } from '../src/agent.js'",
  '',
  "it.tape('units', async ({ tape }) => {",
  "  const { CITY_UNITS } = tape.env(['CITY_UNITS'])",
  "  expect(await ask('Weather in Oslo?')).toBe('echo: Weather in Oslo?')",
  '  expect(CITY_UNITS).toMatch(/metric|imperial/)',
  '})',
  '',
].join('\n')

it('fails a tape once when a variable read through tape.env() drifted, and passes when it is restored', async () => {
  const project = copy()
  project.write('test/units.test.ts', UNITS_TEST)
  const record = await project.vitest('run test/units.test.ts', { ...env(), CITY_UNITS: 'metric' })
  expect(record.code, record.output).toBe(0)
  const path = 'test/__cassettes__/units.test.ts/units.jsonl'
  const cassette = project.read(path)
  // Only a hash salted per cassette is written, never the value.
  expect(cassette).toContain(`"out":{"CITY_UNITS":"${envHash(cassette, 'metric')}"}`)
  expect(cassette).not.toContain('metric')
  const drift = await project.vitest('run test/units.test.ts', { ...env(), CITY_UNITS: 'imperial' })
  expect(drift.code).toBe(1)
  const report = [
    "[agent-tape] Environment drift at step 0: 1 of 1 environment values read through tape.env() differ from the recording (values are compared by hash). Restore the recorded environment, or re-record this test: npx vitest run test/units.test.ts -t '^units$' -- --update-cassettes.",
    '',
    '  cassette  test/__cassettes__/units.test.ts/units.jsonl',
    '',
    `  CITY_UNITS           changed (recorded ${envHash(cassette, 'metric')}, now ${envHash(cassette, 'imperial')})`,
  ].join('\n')
  expect(count(drift.output, report)).toBe(1)
  expect(drift.output).toContain('Tests  1 failed (1)')
  expect(drift.output).toContain(
    '  test/units.test.ts > units  auto  diverged       2/2         -       0       0',
  )
  expect(project.read(path)).toBe(cassette)
  const restored = await project.vitest('run test/units.test.ts', { ...env(), CITY_UNITS: 'metric' })
  expect(restored.code, restored.output).toBe(0)
  expect(restored.output).toContain('agent-tape  1 tape: 1 replayed cleanly, 0 recorded, 0 diverged')
  expect(project.read(path)).toBe(cassette)
})

/** A tape that asks the questions in turn, each expecting its echo. */
const askInTurn = (questions: string[]) =>
  [
    "import { expect, it } from '@agent-tape/vitest'",
    "import { ask } from '../src/agent.js'",
    '',
    "it.tape('early', async () => {",
    ...questions.map((q) => `  expect(await ask('${q}')).toBe('echo: ${q}')`),
    '})',
    '',
  ].join('\n')

it('fails a run that stops before the recording did, unless failOnUnused is false', async () => {
  const project = copy()
  project.write('test/early.test.ts', askInTurn(['First?', 'Second?']))
  const record = await project.vitest('run test/early.test.ts', env())
  expect(record.code, record.output).toBe(0)
  const cassette = project.read('test/__cassettes__/early.test.ts/early.jsonl')
  project.write('test/early.test.ts', askInTurn(['First?']))
  const strict = await project.vitest('run test/early.test.ts', env())
  expect(strict.code).toBe(1)
  const report = [
    "[agent-tape] Run finished after 1 of 2 recorded decisions: 1 recorded decision was never asked for, so the run stopped early or took another path. If the change is intended, re-record this test: npx vitest run test/early.test.ts -t '^early$' -- --update-cassettes (or set failOnUnused: false to allow it).",
    '',
    '  cassette  test/__cassettes__/early.test.ts/early.jsonl',
    '',
    '  Unused recorded decisions:',
  ].join('\n')
  expect(count(strict.output, report)).toBe(1)
  expect(strict.output).toMatch(/\n {4}#2 llm:[0-9a-f]{16}, model request \(gpt-4o-mini\) at step 2\n/)
  expect(strict.output).toContain(
    '  test/early.test.ts > early  auto  diverged       1/2         -       0       1',
  )
  project.write(
    'vitest.config.ts',
    project.read('vitest.config.ts').replace('/v1`]', '/v1`], failOnUnused: false'),
  )
  const lenient = await project.vitest('run test/early.test.ts', env())
  expect(lenient.code, lenient.output).toBe(0)
  expect(lenient.output).toContain('agent-tape  1 tape: 1 replayed cleanly, 0 recorded, 0 diverged')
  expect(lenient.output).toContain(
    '  test/early.test.ts > early  auto  clean        1/2         -       0       1',
  )
  expect(project.read('test/__cassettes__/early.test.ts/early.jsonl')).toBe(cassette)
})

it('runs only the it.tape.only tape, and lists only it without calling the others obsolete', async () => {
  const project = copy()
  project.write(
    'test/agent.test.ts',
    project.read('test/agent.test.ts').replace("it.tape('weather-paris'", "it.tape.only('weather-paris'"),
  )
  const before = project.snapshot('test')
  const run = await project.vitest('run test/agent.test.ts', env())
  expect(run.code, run.output).toBe(0)
  expect(run.output).toContain('Tests  1 passed | 2 skipped (3)')
  expect(run.output).toContain(
    [
      'agent-tape  1 tape: 1 replayed cleanly, 0 recorded, 0 diverged',
      '',
      '  tape                                mode  result  replayed  recorded  missed  unused',
      '  test/agent.test.ts > weather-paris  auto  clean        5/5         -       0       0',
      '',
      '  decisions: 5 replayed, 0 recorded, 0 missed, 0 unused',
    ].join('\n'),
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
    const refused = await project.vitest('run test/database.test.ts', { ...env(), DB_PORT: String(port) })
    expect(refused.code).toBe(1)
    expect(refused.output).toContain(
      `[agent-tape] Blocked a connection to db.internal:${port} from a raw TCP socket (net.connect): tape "test/database.test.ts > database" is recording; agent-tape answers fetch, undici's global dispatcher and node:http/https, not this client`,
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
    const allowed = await project.vitest('run test/database.test.ts', { ...env(), DB_PORT: String(port) })
    expect(allowed.code, allowed.output).toBe(0)
    const replayed = await project.vitest('run test/database.test.ts', {
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
  const before = provider.connections
  const record = await project.vitest('run test/team.test.ts', env())
  expect(record.code, record.output).toBe(0)
  expect(provider.connections).toBeGreaterThan(before)
  const cassette = project.read('test/__cassettes__/team.test.ts/team api and model.jsonl')
  // The team's mocked API is its own business: only the model request is on the tape.
  expect(cassette.trim().split('\n')).toHaveLength(2)
  expect(cassette).not.toContain('accounts.internal.example')
  const connections = provider.connections
  const replay = await project.vitest('run test/team.test.ts', { ...env(), CI: 'true' })
  expect(replay.code, replay.output).toBe(0)
  expect(replay.output).toContain('1 tape: 1 replayed cleanly, 0 recorded, 0 diverged')
  expect(provider.connections).toBe(connections)
})

it('takes every chained modifier of the test API on it.tape, each test claiming its name once', async () => {
  const project = copy()
  project.write(
    'test/modifiers.test.ts',
    readFileSync(join(import.meta.dirname, 'fixtures/modifiers.test.ts'), 'utf8'),
  )
  const run = await project.vitest('run test/modifiers.test.ts', env())
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
  const replay = await project.vitest('run test/modifiers.test.ts', env())
  expect(replay.code, replay.output).toBe(0)
  expect(replay.output).toContain('10 tapes: 10 replayed cleanly, 0 recorded, 0 diverged')
  expect(replay.output).not.toContain('Obsolete')
})

it('in live-tools mode, runs the tools for real against the recorded model: a changed tool fails with the drift report', async () => {
  const project = copy()
  const same = await project.vitest('run test/agent.test.ts', { ...env(), AGENT_TAPE_MODE: 'live-tools' })
  expect(same.code, same.output).toBe(0)
  expect(same.output).toContain('agent-tape  2 tapes: 2 replayed cleanly, 0 recorded, 0 diverged')
  // The weather upstream moved.
  project.write(
    'test/agent.test.ts',
    project.read('test/agent.test.ts').replace('18°C, light rain', '24°C, sunny'),
  )
  const connections = provider.connections
  const moved = await project.vitest('run test/agent.test.ts', { ...env(), AGENT_TAPE_MODE: 'live-tools' })
  expect(moved.code).toBe(1)
  expect(provider.connections).toBe(connections)
  expect(moved.output).toContain('[agent-tape] Tool drift at step 1, tool "get_weather"')
  expect(moved.output).toContain('result: "Paris: 18°C, light rain" → "Paris: 24°C, sunny"')
  expect(moved.output).toContain('The model would now see a different input')
  expect(moved.output).toContain(
    '  Drifted tools (2): run live, they returned something other than their recording:',
  )
  expect(moved.output).toContain('    test/agent.test.ts > weather-paris: step 1, tool "get_weather"')
  // Nothing is recorded in this mode.
  expect(project.snapshot('test/__cassettes__')).toEqual(copy().snapshot('test/__cassettes__'))
})
