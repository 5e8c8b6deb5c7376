import type { FakeProvider } from '@agent-tape/fake-provider'
import { afterAll, beforeAll, expect, it } from 'vitest'
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
    '  test/agent.test.ts > weather-paris     auto  diverged       0/5         -       1       5',
  )
  expect(project.snapshot('test')).toEqual(before)
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
    '[agent-tape] Refusing to re-record cassettes in CI: mode "update" was requested (from AGENT_TAPE_MODE) while CI is set, and CI runs must only replay. Re-record locally and commit the cassettes, or set AGENT_TAPE_ALLOW_CI_RECORDING=1 for a job that is meant to record.',
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
