import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import type { FakeProvider } from '@agent-tape/fake-provider'
import { afterAll, beforeAll, expect, it } from 'vitest'
import { envHash } from '../support/env-hash.js'
import { CITY_AGENT, JestProject, startCityProvider } from './support/jest-project.js'

// One recording of the `agent` fixture, copied by every test: the recording run is the
// first scenario, and each later scenario starts from its cassettes.
let provider: FakeProvider
let recorded: JestProject
let recordRun: { code: number | null; output: string }
const env = () => ({ FAKE_PROVIDER_URL: provider.url })
const projects: JestProject[] = []

function copy(): JestProject {
  const project = new JestProject(recorded)
  projects.push(project)
  return project
}

const count = (text: string, needle: string) => text.split(needle).length - 1
const PROMPT_EDIT = "export const SYSTEM_PROMPT = 'You answer questions about cities, briefly.'\n"

const CASSETTES = [
  'test/__cassettes__/agent.test.ts/refund.jsonl',
  'test/__cassettes__/agent.test.ts/weather-paris.jsonl',
  'test/__cassettes__/claude.test.ts/claude-stream.jsonl',
  ...Array.from({ length: 10 }, (_, i) => `test/__cassettes__/concurrent.test.ts/parallel-${i}.jsonl`),
]

beforeAll(async () => {
  provider = await startCityProvider('jest-fixtures')
  recorded = new JestProject('agent', CITY_AGENT)
  projects.push(recorded)
  // Two workers: the config and the update switch must reach Jest's child processes.
  recordRun = await recorded.jest('--maxWorkers=2', env())
}, 60_000)

afterAll(async () => {
  await provider.close()
  for (const project of projects) project.dispose()
})

it('records every tape on the first run, one cassette per tape beside the test file', () => {
  expect(recordRun.code, recordRun.output).toBe(0)
  expect(recorded.cassettes()).toEqual(CASSETTES)
  expect(recordRun.output).toContain('Tests:       1 skipped, 14 passed, 15 total')
  expect(recordRun.output).toContain('agent-tape  13 tapes: 0 replayed cleanly, 13 recorded, 0 diverged')
  expect(recordRun.output).toContain(
    '  test/agent.test.ts > billing > refund  auto  recorded         -         5       -       -',
  )
  expect(recordRun.output).toContain('  decisions: 0 replayed, 31 recorded, 0 missed, 0 unused')
  const header = JSON.parse(recorded.read(CASSETTES[0]!).split('\n')[0]!)
  expect(header.test).toBe('test/agent.test.ts > billing > refund')
})

it('gives each concurrent tape its own cassette, and streams Anthropic responses into events', () => {
  for (let i = 0; i < 10; i++) {
    const text = recorded.read(`test/__cassettes__/concurrent.test.ts/parallel-${i}.jsonl`)
    expect(text).toContain(`Echo record ${i}"`)
    expect(text.match(/Echo record \d+"/g)!.every((m) => m === `Echo record ${i}"`)).toBe(true)
  }
  const claude = recorded.read('test/__cassettes__/claude.test.ts/claude-stream.jsonl')
  expect(claude).toContain('"event":"message_start"')
  expect(claude).toContain('"api":"anthropic-messages"')
})

it('replays on the second run with no connection to the model, and summarizes it (also as Markdown)', async () => {
  const project = copy()
  const before = project.snapshot()
  const connections = provider.connections
  project.write('step-summary.md', '')
  const run = await project.jest('', { ...env(), GITHUB_STEP_SUMMARY: `${project.dir}/step-summary.md` })
  expect(run.code, run.output).toBe(0)
  expect(provider.connections - connections).toBe(0)
  expect(run.output).toContain('agent-tape  13 tapes: 13 replayed cleanly, 0 recorded, 0 diverged')
  expect(run.output).toContain(
    '  test/agent.test.ts > weather-paris     auto  clean        5/5         -       0       0',
  )
  expect(run.output).toContain(
    '  test/claude.test.ts > claude-stream    auto  clean        1/1         -       0       0',
  )
  expect(run.output).toContain(
    '  test/concurrent.test.ts > parallel-7   auto  clean        2/2         -       0       0',
  )
  expect(run.output).toContain('  decisions: 31 replayed, 0 recorded, 0 missed, 0 unused')
  expect(run.output).toMatch(/ {2}tokens replayed instead of spent: [\d,]+ \([\d,]+ in, [\d,]+ out\)/)
  const { 'step-summary.md': markdown, ...after } = project.snapshot()
  expect(after).toEqual(before)
  expect(markdown).toContain('### agent-tape\n\n**13 tapes: 13 replayed cleanly, 0 recorded, 0 diverged**')
  expect(markdown).toContain('| `test/agent.test.ts > billing > refund` | auto | clean | 5/5 | - | 0 | 0 |')
})

it('fails a prompt edit once per test, with the field diff and the command that re-records it', async () => {
  const project = copy()
  const before = project.snapshot('test')
  project.write('src/prompt.ts', PROMPT_EDIT)
  const run = await project.jest('test/agent.test.ts', env())
  expect(run.code).toBe(1)
  expect(run.output).toContain('Tests:       2 failed, 1 passed, 3 total')
  // Jest indents a failure message by four spaces.
  const report = [
    "[agent-tape] Replay miss at step 1, model request (gpt-4o): the run asked for a decision that was never recorded. If the change is intended, re-record this test: npx jest test/agent.test.ts -t '^weather-paris$' -- --update-cassettes.",
    '',
    '      cassette  test/__cassettes__/agent.test.ts/weather-paris.jsonl',
  ].join('\n')
  expect(count(run.output, report)).toBe(1)
  expect(count(run.output, "re-record this test: npx jest test/agent.test.ts -t '^billing refund$'")).toBe(1)
  expect(count(run.output, 'Input changed (recorded → now):')).toBe(2)
  expect(run.output).toContain(
    '        body.messages[0].content: "You answer questions about cities." → "You answer questions about cities, briefly."',
  )
  expect(run.output).toContain(
    '  test/agent.test.ts > weather-paris     auto  diverged       0/5         -       1       -',
  )
  expect(project.snapshot('test')).toEqual(before)
  const view =
    'npx agent-tape view test/__cassettes__/agent.test.ts/weather-paris.jsonl --run .agent-tape-cache/runs/test/__cassettes__/agent.test.ts/weather-paris.jsonl'
  expect(count(run.output, `      view      ${view}\n`)).toBe(1)
  expect(
    project.read('.agent-tape-cache/runs/test/__cassettes__/agent.test.ts/weather-paris.jsonl'),
  ).toContain('You answer questions about cities, briefly.')
})

it('writes the divergence view of each diverged test into viewDir, named in the run summary', async () => {
  const project = copy()
  project.write(
    'jest.config.js',
    project.read('jest.config.js').replace('agentTape: {', "agentTape: { viewDir: 'agent-tape-views',"),
  )
  project.write('src/prompt.ts', PROMPT_EDIT)
  const run = await project.jest('test/agent.test.ts', env())
  expect(run.code).toBe(1)
  expect(run.output).toContain(
    '  Divergence views (2): each diverged run next to its recording, one page to open in a browser:',
  )
  const page = 'agent-tape-views/test/__cassettes__/agent.test.ts/weather-paris.html'
  expect(run.output).toContain(`    test/agent.test.ts > weather-paris: ${page}`)
  expect(project.read(page)).toContain('You answer questions about cities, briefly.')
})

it('re-records only the selected test with the printed command, leaving every other cassette untouched', async () => {
  const project = copy()
  project.write('src/prompt.ts', PROMPT_EDIT)
  const failed = await project.jest('', env())
  const command = /re-record this test: (npx jest .*'\^weather-paris\$' -- --update-cassettes)\./.exec(
    failed.output,
  )?.[1]
  expect(command).toBe("npx jest test/agent.test.ts -t '^weather-paris$' -- --update-cassettes")
  const before = project.snapshot('test')
  const update = await project.run(command!, env())
  expect(update.code, update.output).toBe(0)
  expect(update.output).toContain('agent-tape  1 tape: 0 replayed cleanly, 1 recorded, 0 diverged')
  const after = project.snapshot('test')
  const changed = Object.keys(after).filter((path) => after[path] !== before[path])
  expect(changed).toEqual(['test/__cassettes__/agent.test.ts/weather-paris.jsonl'])
  expect(after[changed[0]!]).toContain('You answer questions about cities, briefly.')
  const replay = await project.jest('test/agent.test.ts', env())
  expect(replay.output).toContain('  test/agent.test.ts > weather-paris     auto  clean          5/5')
  expect(replay.output).toContain('  test/agent.test.ts > billing > refund  auto  diverged       0/5')
})

it('re-records every tape that runs with agent-tape-jest --update-cassettes, as with AGENT_TAPE_MODE=update', async () => {
  const project = copy()
  project.write('src/prompt.ts', PROMPT_EDIT)
  const wrapper = await project.run('npx agent-tape-jest test/agent.test.ts --update-cassettes', env())
  expect(wrapper.code, wrapper.output).toBe(0)
  expect(wrapper.output).toContain('agent-tape  2 tapes: 0 replayed cleanly, 2 recorded, 0 diverged')
  expect(wrapper.output).toContain('  test/agent.test.ts > weather-paris     update  recorded')
  expect(project.read('test/__cassettes__/agent.test.ts/refund.jsonl')).toContain('cities, briefly.')
  const byEnv = await project.jest('test/claude.test.ts', { ...env(), AGENT_TAPE_MODE: 'update' })
  expect(byEnv.code, byEnv.output).toBe(0)
  expect(byEnv.output).toContain('  test/claude.test.ts > claude-stream  update  recorded')
  const replay = await project.jest('', env())
  expect(replay.code, replay.output).toBe(0)
  expect(replay.output).toContain('agent-tape  13 tapes: 13 replayed cleanly')
})

it('in CI, a missing cassette fails its test without writing anything, and the update switch is refused', async () => {
  const project = copy()
  project.remove('test/__cassettes__/agent.test.ts/refund.jsonl')
  const before = project.snapshot()
  const message = (why: string) =>
    `[agent-tape] No cassette for test "test/agent.test.ts > billing > refund": test/__cassettes__/agent.test.ts/refund.jsonl does not exist, and mode "replay" (${why}) never records. Run the test locally without CI to record it (mode "auto" records missing cassettes), then commit the file.`
  for (const [args, extra, why] of [
    ['', { CI: 'true' }, 'CI is set'],
    // Jest's own switch, with no CI variable: the message names the switch.
    ['--ci', {}, "Jest's --ci is given"],
  ] as const) {
    const run = await project.jest(args, { ...env(), ...extra })
    expect(run.code).toBe(1)
    expect(count(run.output, message(why))).toBe(1)
    expect(run.output).toContain('Tests:       1 failed, 1 skipped, 13 passed, 15 total')
    expect(run.output).toContain(
      '  test/agent.test.ts > billing > refund  replay  error ERR_TAPE_NO_CASSETTE',
    )
    expect(project.snapshot()).toEqual(before)
  }
  const refused =
    '[agent-tape] Refusing to re-record cassettes in CI: mode "update" was requested (by --update-cassettes) while CI is set, and CI runs must only replay. Re-record locally and commit the cassettes, or set AGENT_TAPE_ALLOW_CI_RECORDING=1 for a job that is meant to record.'
  const wrapper = await project.run('npx agent-tape-jest --update-cassettes', { ...env(), CI: 'true' })
  expect(wrapper.code).toBe(1)
  expect(wrapper.output).toContain(refused)
  const flag = await project.jest('test/agent.test.ts --ci -- --update-cassettes', env())
  expect(flag.code).toBe(1)
  expect(flag.output).toContain(refused.replace('while CI is set', "while Jest's --ci is given"))
  expect(project.snapshot()).toEqual(before)
})

it('reports a damaged cassette with its file and line, and leaves it as it was', async () => {
  const project = copy()
  const path = 'test/__cassettes__/agent.test.ts/refund.jsonl'
  const lines = project.read(path).split('\n')
  lines[2] = '{"seq":2,"key":'
  project.write(path, lines.join('\n'))
  const damaged = project.read(path)
  const run = await project.jest('test/agent.test.ts', env())
  expect(run.code).toBe(1)
  expect(run.output).toMatch(
    /\[agent-tape\] Cannot load cassette test\/__cassettes__\/agent\.test\.ts\/refund\.jsonl \(line 3\): /,
  )
  expect(count(run.output, '[agent-tape] Cannot load cassette')).toBe(1)
  expect(run.output).toContain('Tests:       1 failed, 2 passed, 3 total')
  expect(run.output).toContain(
    '  test/agent.test.ts > billing > refund  auto  error ERR_TAPE_CORRUPT       0/0',
  )
  expect(project.read(path)).toBe(damaged)
})

it('rejects two tapes with one name in a file before any of them runs, and names with a path in them', async () => {
  const project = copy()
  project.write(
    'test/dup.test.ts',
    [
      "it.tape('same', async ({ tape }) => { await tape.tool('t', {}, () => 1) })",
      "describe('group', () => { it.tape.skip('same', async () => {}) })",
      '',
    ].join('\n'),
  )
  project.write('test/bad-name.test.ts', "it.tape('../escape', async () => {})\n")
  // A table row that makes an invalid name is named, not the template.
  project.write(
    'test/bad-row.test.ts',
    "it.tape.each([['paris'], ['a/b']])('city %s', async (city, { tape }) => { await tape.tool('t', { city }, () => 1) })\n",
  )
  const run = await project.jest('test/dup.test.ts test/bad-name.test.ts test/bad-row.test.ts', env())
  expect(run.code).toBe(1)
  expect(run.output).toContain(
    '[agent-tape] Duplicate tape name "same" in test/dup.test.ts: the tests "same" and "group > same" would share one cassette. Give each tape in a file its own name.',
  )
  expect(run.output).toContain('[agent-tape] Invalid tape name "../escape" in test/bad-name.test.ts')
  expect(run.output).toContain('[agent-tape] Invalid tape name "city a/b" in test/bad-row.test.ts')
  expect(run.output).not.toContain('Invalid tape name "city %s"')
  expect(project.cassettes()).toEqual(CASSETTES)
})

it('lists obsolete cassettes without deleting them, and deletes them only with --prune-cassettes', async () => {
  const project = copy()
  project.write('test/__cassettes__/agent.test.ts/renamed-away.jsonl', '')
  project.write('test/__cassettes__/deleted.test.ts/gone.jsonl', '')
  const run = await project.jest('test/agent.test.ts test/claude.test.ts', env())
  expect(run.code, run.output).toBe(0)
  expect(run.output).toContain(
    [
      '  Obsolete cassettes (2): no test uses them any more. Delete them, or prune them with npx agent-tape-jest --prune-cassettes:',
      '    test/__cassettes__/agent.test.ts/renamed-away.jsonl',
      '    test/__cassettes__/deleted.test.ts/gone.jsonl',
    ].join('\n'),
  )
  // The skipped tape still claims its name: a filtered or skipped test's cassette is not obsolete.
  expect(run.output).not.toContain('claude-later')
  expect(project.cassettes()).toHaveLength(15)
  // The command the hint prints, and the switch after a file filter, both prune.
  const printed = await project.run('npx agent-tape-jest --prune-cassettes', env())
  expect(printed.code, printed.output).toBe(0)
  expect(printed.output).toContain('  Pruned 2 obsolete cassettes:')
  expect(project.cassettes()).toEqual(CASSETTES)
  project.write('test/__cassettes__/deleted.test.ts/gone.jsonl', '')
  const filtered = await project.jest('test/agent.test.ts -- --prune-cassettes', env())
  expect(filtered.output).toContain('  Pruned 1 obsolete cassette:')
  expect(project.cassettes()).toEqual(CASSETTES)
})

// The scenarios below write a test file of their own into the copy, so the counts above stay.
const UNITS_TEST = [
  "import { ask } from '../src/agent'",
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
  const record = await project.jest('test/units.test.ts', { ...env(), CITY_UNITS: 'metric' })
  expect(record.code, record.output).toBe(0)
  const path = 'test/__cassettes__/units.test.ts/units.jsonl'
  const cassette = project.read(path)
  // Only a hash salted per cassette is written, never the value.
  expect(cassette).toContain(`"out":{"CITY_UNITS":"${envHash(cassette, 'metric')}"}`)
  expect(cassette).not.toContain('metric')
  const drift = await project.jest('test/units.test.ts', { ...env(), CITY_UNITS: 'imperial' })
  expect(drift.code).toBe(1)
  const report = [
    "[agent-tape] Environment drift at step 0: 1 of 1 environment values read through tape.env() differ from the recording (values are compared by hash). Restore the recorded environment, or re-record this test: npx jest test/units.test.ts -t '^units$' -- --update-cassettes.",
    '',
    '      cassette  test/__cassettes__/units.test.ts/units.jsonl',
    '',
    `      CITY_UNITS           changed (recorded ${envHash(cassette, 'metric')}, now ${envHash(cassette, 'imperial')})`,
  ].join('\n')
  expect(count(drift.output, report)).toBe(1)
  expect(drift.output).toContain('Tests:       1 failed, 1 total')
  expect(drift.output).toContain(
    '  test/units.test.ts > units  auto  diverged       2/2         -       0       0',
  )
  expect(project.read(path)).toBe(cassette)
  const restored = await project.jest('test/units.test.ts', { ...env(), CITY_UNITS: 'metric' })
  expect(restored.code, restored.output).toBe(0)
  expect(restored.output).toContain('agent-tape  1 tape: 1 replayed cleanly, 0 recorded, 0 diverged')
  expect(project.read(path)).toBe(cassette)
})

/** A tape that asks the questions in turn and expects the echo of `expected` as the last answer. */
const askInTurn = (questions: string[], expected = questions.at(-1)) =>
  [
    "import { ask } from '../src/agent'",
    '',
    "it.tape('early', async () => {",
    "  let answer = ''",
    ...questions.map((q) => `  answer = await ask('${q}')`),
    `  expect(answer).toBe('echo: ${expected}')`,
    '})',
    '',
  ].join('\n')

const EARLY_REPORT = [
  "[agent-tape] Run finished after 1 of 2 recorded decisions: 1 recorded decision was never asked for, so the run stopped early or took another path. If the change is intended, re-record this test: npx jest test/early.test.ts -t '^early$' -- --update-cassettes (or set failOnUnused: false to allow it).",
  '',
  '      cassette  test/__cassettes__/early.test.ts/early.jsonl',
  '',
  '      Unused recorded decisions:',
].join('\n')

/** A copy with test/early.test.ts recorded asking two questions, then edited to ask only the first. */
async function stoppedEarly(expected?: string): Promise<JestProject> {
  const project = copy()
  project.write('test/early.test.ts', askInTurn(['First?', 'Second?']))
  const record = await project.jest('test/early.test.ts', env())
  expect(record.code, record.output).toBe(0)
  project.write('test/early.test.ts', askInTurn(['First?'], expected))
  return project
}

it('fails a run that stops before the recording did, unless failOnUnused is false', async () => {
  const project = await stoppedEarly()
  const cassette = project.read('test/__cassettes__/early.test.ts/early.jsonl')
  const strict = await project.jest('test/early.test.ts', env())
  expect(strict.code).toBe(1)
  expect(count(strict.output, EARLY_REPORT)).toBe(1)
  expect(strict.output).toMatch(/\n {8}#2 llm:[0-9a-f]{16}, model request \(gpt-4o-mini\) at step 2\n/)
  expect(strict.output).toContain(
    '  test/early.test.ts > early  auto  diverged       1/2         -       0       1',
  )
  project.write(
    'jest.config.js',
    project.read('jest.config.js').replace('/v1`] }', '/v1`], failOnUnused: false }'),
  )
  const lenient = await project.jest('test/early.test.ts', env())
  expect(lenient.code, lenient.output).toBe(0)
  expect(lenient.output).toContain('agent-tape  1 tape: 1 replayed cleanly, 0 recorded, 0 diverged')
  expect(lenient.output).toContain(
    '  test/early.test.ts > early  auto  clean        1/2         -       0       1',
  )
  expect(project.read('test/__cassettes__/early.test.ts/early.jsonl')).toBe(cassette)
})

it('shows the divergence report first and the failed assertion as its cause when both happen', async () => {
  const project = await stoppedEarly('Second?')
  const run = await project.jest('test/early.test.ts', env())
  expect(run.code).toBe(1)
  expect(run.output).toContain('Tests:       1 failed, 1 total')
  expect(count(run.output, EARLY_REPORT)).toBe(1)
  const cause = run.output.indexOf('\n    Cause:\n')
  expect(cause).toBeGreaterThan(run.output.indexOf(EARLY_REPORT))
  expect(run.output.slice(cause)).toContain(
    ['        Expected: "echo: Second?"', '        Received: "echo: First?"'].join('\n'),
  )
  expect(run.output).toContain(
    '  test/early.test.ts > early  auto  diverged       1/2         -       0       1',
  )
})

it('takes every way Jest defines a test on it.tape: concurrent, skip, todo, failing and each on each of them', async () => {
  const project = copy()
  project.write(
    'test/modifiers.test.ts',
    readFileSync(join(import.meta.dirname, 'fixtures/modifiers.test.ts'), 'utf8'),
  )
  const run = await project.jest('test/modifiers.test.ts', env())
  expect(run.code, run.output).toBe(0)
  expect(run.output).toContain('Tests:       3 skipped, 1 todo, 7 passed, 11 total')
  const recorded = project.cassettes().filter((c) => c.includes('modifiers.test.ts'))
  expect(recorded.map((c) => c.split('/').at(-1))).toEqual([
    'concurrent-failing.jsonl',
    'concurrent.jsonl',
    'each-a.jsonl',
    'each-b.jsonl',
    'failing-each-x.jsonl',
    'failing.jsonl',
    'plain.jsonl',
  ])
  const replay = await project.jest('test/modifiers.test.ts', env())
  expect(replay.code, replay.output).toBe(0)
  expect(replay.output).toContain('7 tapes: 7 replayed cleanly, 0 recorded, 0 diverged')
  // The skipped and todo tapes keep their names: nothing is called obsolete.
  expect(replay.output).not.toContain('bsolete')
})

it("agent-tape-jest --help names its own switches before Jest's help", async () => {
  const help = await copy().run('npx agent-tape-jest --help', env())
  expect(help.code, help.output).toBe(0)
  expect(help.output).toContain("agent-tape-jest: Jest's CLI, with agent-tape's switches")
  expect(help.output).toContain('--update-cassettes   re-record every tape that runs')
  expect(help.output).toContain('--prune-cassettes    delete the cassettes')
  // Jest's own help follows.
  expect(help.output.indexOf('--prune-cassettes')).toBeLessThan(help.output.indexOf('--testNamePattern'))
})

it('in live-tools mode, runs the tools for real against the recorded model, and fails a changed one with the drift report', async () => {
  const project = copy()
  const same = await project.jest('test/agent.test.ts', {
    ...env(),
    AGENT_TAPE_MODE: 'live-tools',
    CI: 'true',
  })
  expect(same.code, same.output).toBe(0)
  expect(same.output).toContain('2 replayed cleanly, 0 recorded, 0 diverged')
  project.write(
    'test/agent.test.ts',
    project.read('test/agent.test.ts').replace('18°C, light rain', '24°C, sunny'),
  )
  const connections = provider.connections
  const moved = await project.jest('test/agent.test.ts', {
    ...env(),
    AGENT_TAPE_MODE: 'live-tools',
    CI: 'true',
  })
  expect(moved.code).toBe(1)
  expect(provider.connections).toBe(connections)
  expect(moved.output).toContain('[agent-tape] Tool drift at step 1, tool "get_weather"')
  expect(moved.output).toContain('result: "Paris: 18°C, light rain" → "Paris: 24°C, sunny"')
  expect(moved.output).toContain(
    '  Drifted tools (2): run live, they returned something other than their recording:',
  )
})
