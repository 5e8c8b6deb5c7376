import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import { describe, expect, it } from 'vitest'
import { envHash } from '../support/env-hash.js'
import { useRecordedFixture } from './recorded-fixture.js'
import { configure, failure, RUNNERS, rerecordCommand, testFile } from './runners.js'
import { count, earlyReport, PROMPT_EDIT, stoppedEarly, withoutCodeFrames } from './scenarios.js'

// What a user of either runner gets alike, from the same city agent in each runner's `agent`
// fixture; what the runners print or take differently comes from the runner description.
// The two runners' suites run side by side, each with its own fake model and projects (a run
// mostly waits on the runner it spawned); within a suite the scenarios run in turn, as they count
// the model's connections. A scenario runs the runner up to three times, beside the other runner's
// suite and, in the whole suite, another test file: one that takes 14 s on a quiet 2-core machine
// has gone past 60 s on a loaded one, so each is given 120 s.

const CASSETTES = [
  'test/__cassettes__/agent.test.ts/billing/refund.jsonl',
  'test/__cassettes__/agent.test.ts/weather-paris.jsonl',
  'test/__cassettes__/claude.test.ts/claude-stream.jsonl',
  ...Array.from({ length: 10 }, (_, i) => `test/__cassettes__/concurrent.test.ts/parallel-${i}.jsonl`),
]

/** Cassettes of a tape renamed away, and of a deleted test file. */
const OBSOLETE = [
  'test/__cassettes__/agent.test.ts/renamed-away.jsonl',
  'test/__cassettes__/deleted.test.ts/gone.jsonl',
]
/** The cassette of a skipped tape: not obsolete, as the tape still claims its name. */
const SKIPPED = 'test/__cassettes__/claude.test.ts/claude-later.jsonl'
/** What pruning leaves. */
const KEPT = [...CASSETTES, SKIPPED].sort()

describe.concurrent.each(RUNNERS)('$name', { timeout: 120_000 }, (runner) => {
  const fixture = useRecordedFixture(runner)
  const { env, copy } = fixture
  const otherStream = runner.summaryStream === 'stdout' ? 'stderr' : 'stdout'

  it.sequential('records every tape on the first run, one cassette per tape beside the test file', () => {
    const { recordRun, recorded } = fixture
    expect(recordRun.code, recordRun.output).toBe(0)
    expect(recorded.cassettes()).toEqual(CASSETTES)
    expect(recordRun.output).toContain(runner.tests({ skipped: 1, passed: 14 }))
    const summary = 'agent-tape  13 tapes: 0 replayed cleanly, 13 recorded, 0 diverged'
    expect(recordRun[runner.summaryStream]).toContain(summary)
    expect(recordRun[otherStream]).not.toContain(summary)
    expect(recordRun[runner.summaryStream]).toContain(
      '  test/agent.test.ts > billing > refund  auto  recorded         -         5       -       -',
    )
    expect(recordRun[runner.summaryStream]).toContain(
      '  decisions: 0 replayed, 31 recorded, 0 missed, 0 unused',
    )
    const header = JSON.parse(recorded.read(CASSETTES[0]!).split('\n')[0]!)
    expect(header.test).toBe('test/agent.test.ts > billing > refund')
  })

  it.sequential('gives each concurrent tape its own cassette, and streams Anthropic responses into events', () => {
    for (let i = 0; i < 10; i++) {
      const text = fixture.recorded.read(`test/__cassettes__/concurrent.test.ts/parallel-${i}.jsonl`)
      expect(text).toContain(`Echo record ${i}"`)
      expect(text.match(/Echo record \d+"/g)!.every((m) => m === `Echo record ${i}"`)).toBe(true)
    }
    const claude = fixture.recorded.read('test/__cassettes__/claude.test.ts/claude-stream.jsonl')
    expect(claude).toContain('"event":"message_start"')
    expect(claude).toContain('"api":"anthropic-messages"')
  })

  it.sequential('replays on the second run with no connection to the model, and summarizes it (also as Markdown)', async () => {
    const project = copy()
    const before = project.snapshot()
    const connections = fixture.provider.connections
    project.write('step-summary.md', '')
    const run = await project.runTests('', {
      ...env(),
      GITHUB_STEP_SUMMARY: `${project.dir}/step-summary.md`,
    })
    expect(run.code, run.output).toBe(0)
    expect(fixture.provider.connections - connections).toBe(0)
    const summary = run[runner.summaryStream]
    expect(summary).toContain('agent-tape  13 tapes: 13 replayed cleanly, 0 recorded, 0 diverged')
    expect(summary).toContain(
      '  test/agent.test.ts > weather-paris     auto  clean        5/5         -       0       0',
    )
    expect(summary).toContain(
      '  test/claude.test.ts > claude-stream    auto  clean        1/1         -       0       0',
    )
    expect(summary).toContain(
      '  test/concurrent.test.ts > parallel-7   auto  clean        2/2         -       0       0',
    )
    expect(summary).toContain('  decisions: 31 replayed, 0 recorded, 0 missed, 0 unused')
    // Two agent runs of 3 model requests, ten echo requests and a Claude stream: usage as the fake
    // model reported it.
    expect(summary).toMatch(
      / {2}replayed [\d,]+ tokens of recordings ≈ \$[\d.]+ that this run did not spend \([\d,]+ in, [\d,]+ out\)/,
    )
    const { 'step-summary.md': markdown, ...after } = project.snapshot()
    expect(after).toEqual(before)
    expect(markdown).toContain('### agent-tape\n\n**13 tapes: 13 replayed cleanly, 0 recorded, 0 diverged**')
    expect(markdown).toContain('| `test/agent.test.ts > billing > refund` | auto | clean | 5/5 | - | 0 | 0 |')
  })

  it.sequential('fails a prompt edit once per test, with the field diff and the command that re-records it', async () => {
    const project = copy()
    const before = project.snapshot('test')
    project.write('src/prompt.ts', PROMPT_EDIT)
    const run = await project.runTests('test/agent.test.ts', env())
    expect(run.code).toBe(1)
    expect(run.output).toContain(runner.tests({ failed: 2, passed: 1 }))
    const report = failure(runner, [
      `[agent-tape] Replay miss at step 1, model request (gpt-4o): the run asked for a decision that was never recorded. If the change is intended, re-record this test: ${rerecordCommand(runner, 'test/agent.test.ts', 'weather-paris')}.`,
      '',
      '  cassette  test/__cassettes__/agent.test.ts/weather-paris.jsonl',
    ])
    expect(count(run.output, report)).toBe(1)
    expect(
      count(
        run.output,
        `re-record this test: ${rerecordCommand(runner, 'test/agent.test.ts', 'billing refund')}`,
      ),
    ).toBe(1)
    expect(count(run.output, 'Input changed (recorded → now):')).toBe(2)
    expect(run.output).toContain(
      `${runner.failureIndent}    body.messages[0].content: "You answer questions about cities." → "You answer questions about cities, briefly."`,
    )
    expect(run.output).toContain(
      '  test/agent.test.ts > weather-paris     auto  diverged       0/5         -       1       -',
    )
    expect(project.snapshot('test')).toEqual(before)
    // The report names the command that opens the run next to its recording; the run is kept there.
    const kept = '.agent-tape-cache/runs/test/__cassettes__/agent.test.ts/weather-paris.jsonl'
    const view = `npx --no-install agent-tape view test/__cassettes__/agent.test.ts/weather-paris.jsonl --run ${kept}`
    expect(count(run.output, `${runner.failureIndent}  view      ${view}\n`)).toBe(1)
    expect(project.read(kept).trimEnd().split('\n')).toHaveLength(2)
    expect(project.read(kept)).toContain('You answer questions about cities, briefly.')
    const opened = await project.run(`${view} -o view.html`)
    expect(opened.code, opened.output).toBe(0)
    expect(opened.output).toBe(`${pathToFileURL(join(project.dir, 'view.html')).href}\n`)
    expect(project.read('view.html')).toContain(
      '"verdict":"diverged at decision #1 (step 1): 0 the same, 1 missed',
    )
  })

  it.sequential('says in one line that -u updates snapshots, not cassettes, when a tape diverged', async () => {
    const project = copy()
    const before = project.snapshot('test')
    const line = `  -u updates snapshots, not cassettes: re-record a diverged test with the command its failure prints, or every tape that runs with ${runner.updateAllCommand}.`
    const clean = await project.runTests('test/agent.test.ts -u', env())
    expect(clean.code, clean.output).toBe(0)
    expect(clean.output).not.toContain('updates snapshots')
    project.write('src/prompt.ts', PROMPT_EDIT)
    const diverged = await project.runTests('test/agent.test.ts -u', env())
    expect(diverged.code).toBe(1)
    expect(count(diverged.output, line)).toBe(1)
    expect(diverged.output.indexOf(line)).toBeGreaterThan(diverged.output.indexOf('  decisions:'))
    expect(project.snapshot('test')).toEqual(before)
  })

  it.sequential('writes the divergence view of each diverged test into viewDir, and the step summary points at them', async () => {
    const project = copy()
    configure(runner, project, "viewDir: 'agent-tape-views'")
    project.write('src/prompt.ts', PROMPT_EDIT)
    project.write('step-summary.md', '')
    const run = await project.runTests('test/agent.test.ts', {
      ...env(),
      GITHUB_STEP_SUMMARY: `${project.dir}/step-summary.md`,
      GITHUB_SERVER_URL: 'https://github.com',
      GITHUB_REPOSITORY: 'acme/agents',
      GITHUB_RUN_ID: '42',
    })
    expect(run.code).toBe(1)
    const pages = {
      'test/agent.test.ts > billing > refund':
        'agent-tape-views/test/__cassettes__/agent.test.ts/billing/refund.html',
      'test/agent.test.ts > weather-paris':
        'agent-tape-views/test/__cassettes__/agent.test.ts/weather-paris.html',
    }
    expect(run.output).toContain(
      '  Divergence views (2): each diverged run next to its recording, one page to open in a browser:',
    )
    for (const [test, page] of Object.entries(pages)) {
      expect(run.output).toContain(`    ${test}: ${page}`)
      expect(project.read(page)).toMatch(/^<!doctype html>/)
      expect(project.read(page)).toContain('You answer questions about cities, briefly.')
    }
    expect(project.read('step-summary.md')).toContain(
      "  Divergence views (2): each diverged run next to its recording, one page to open in a browser, in [this run's artifacts](https://github.com/acme/agents/actions/runs/42#artifacts) when the job uploads the view folder:\n",
    )
    expect(project.read('step-summary.md')).toContain(
      `- \`test/agent.test.ts > weather-paris\`: ${pages['test/agent.test.ts > weather-paris']}`,
    )
  })

  it.sequential('re-records only the selected test with the printed command, leaving every other cassette untouched', async () => {
    const project = copy()
    project.write('src/prompt.ts', PROMPT_EDIT)
    const failed = await project.runTests('', env())
    const command = /re-record this test: (npx .*'\^weather-paris\$'.* --update-cassettes)\./.exec(
      failed.output,
    )?.[1]
    expect(command).toBe(rerecordCommand(runner, 'test/agent.test.ts', 'weather-paris'))
    const before = project.snapshot('test')
    const update = await project.run(command!, env())
    expect(update.code, update.output).toBe(0)
    // The runner does not echo the switch back (as Jest does a path pattern after --).
    expect(update.output).not.toContain('--update-cassettes')
    expect(update.output).toContain('agent-tape  1 tape: 0 replayed cleanly, 1 recorded, 0 diverged')
    const after = project.snapshot('test')
    const changed = Object.keys(after).filter((path) => after[path] !== before[path])
    expect(changed).toEqual(['test/__cassettes__/agent.test.ts/weather-paris.jsonl'])
    expect(after[changed[0]!]).toContain('You answer questions about cities, briefly.')
    const replay = await project.runTests('test/agent.test.ts', env())
    expect(replay.output).toContain('  test/agent.test.ts > weather-paris     auto  clean          5/5')
    expect(replay.output).toContain('  test/agent.test.ts > billing > refund  auto  diverged       0/5')
  })

  /** A copy whose refund test lost its cassette, and its files before any run. */
  function withoutRefund() {
    const project = copy()
    project.remove('test/__cassettes__/agent.test.ts/billing/refund.jsonl')
    return { project, before: project.snapshot() }
  }

  it.sequential('in CI, a missing cassette fails its test without writing anything', async () => {
    const { project, before } = withoutRefund()
    const missing = (why: string) =>
      `[agent-tape] No cassette for test "test/agent.test.ts > billing > refund": test/__cassettes__/agent.test.ts/billing/refund.jsonl does not exist, and mode "replay" (${why}) never records. Run the test locally without CI to record it (mode "auto" records missing cassettes), then commit the file.`
    const ways: { args: string; env: Record<string, string>; why: string }[] = [
      { args: '', env: { CI: 'true' }, why: 'CI is set' },
      // The runner's own switch, with no CI variable: the message names the switch.
      ...(runner.ciSwitch ? [{ args: runner.ciSwitch.args, env: {}, why: runner.ciSwitch.why }] : []),
    ]
    for (const way of ways) {
      const run = await project.runTests(way.args, { ...env(), ...way.env })
      expect(run.code).toBe(1)
      expect(count(run.output, missing(way.why))).toBe(1)
      expect(run.output).toContain(runner.tests({ failed: 1, skipped: 1, passed: 13 }))
      expect(run.output).toContain(
        '  test/agent.test.ts > billing > refund  replay  error ERR_TAPE_NO_CASSETTE',
      )
      expect(project.snapshot()).toEqual(before)
    }
  })

  it.sequential('in CI, the update switch is refused, and nothing is written', async () => {
    const { project, before } = withoutRefund()
    const refused = (why: string) =>
      `[agent-tape] Refusing to re-record cassettes in CI: mode "update" was requested (by --update-cassettes) while ${why}, and CI runs must only replay. Re-record locally and commit the cassettes, or set AGENT_TAPE_ALLOW_CI_RECORDING=1 for a job that is meant to record.`
    const update = await runner.updateAll(project, { ...env(), CI: 'true' })
    expect(update.code).toBe(1)
    expect(update.output).toContain(refused('CI is set'))
    if (runner.ciSwitch) {
      const args = `test/agent.test.ts ${runner.ciSwitch.args} -- --update-cassettes`
      const flag = await project.runTests(args, env())
      expect(flag.code).toBe(1)
      expect(flag.output).toContain(refused(runner.ciSwitch.why))
    }
    expect(project.snapshot()).toEqual(before)
  })

  it.sequential('reports a damaged cassette with its file and line, and leaves it as it was', async () => {
    const project = copy()
    const path = 'test/__cassettes__/agent.test.ts/billing/refund.jsonl'
    const lines = project.read(path).split('\n')
    lines[2] = '{"seq":2,"key":'
    project.write(path, lines.join('\n'))
    const damaged = project.read(path)
    const run = await project.runTests('test/agent.test.ts', env())
    expect(run.code).toBe(1)
    expect(run.output).toMatch(
      /CassetteCorruptError: \[agent-tape\] Cannot load cassette test\/__cassettes__\/agent\.test\.ts\/billing\/refund\.jsonl \(line 3\): /,
    )
    expect(count(withoutCodeFrames(run.output), 'Cannot load cassette')).toBe(1)
    expect(count(run.output, '[agent-tape] Cannot load cassette')).toBe(1)
    expect(run.output).toContain(runner.tests({ failed: 1, passed: 2 }))
    expect(run.output).toContain(
      '  test/agent.test.ts > billing > refund  auto  error ERR_TAPE_CORRUPT       0/0',
    )
    expect(project.read(path)).toBe(damaged)
  })

  it.sequential('rejects two tapes with one name in a file before any of them runs, and names with a path in them', async () => {
    const project = copy()
    project.write(
      'test/dup.test.ts',
      testFile(runner, [
        // One name in two describe paths is two cassettes; twice in one describe path, one.
        "it.tape('same', async ({ tape }) => { await tape.tool('t', {}, () => 1) })",
        "describe('group', () => { it.tape('same', async () => {}); it.tape.skip('same', async () => {}) })",
      ]),
    )
    project.write('test/bad-name.test.ts', testFile(runner, ["it.tape('../escape', async () => {})"]))
    // A table row that makes an invalid name is named, not the template.
    project.write(
      'test/bad-row.test.ts',
      testFile(runner, [
        runner.tapeEach("[['paris'], ['a/b']]", 'city %s', "await tape.tool('t', { city: row }, () => 1)"),
      ]),
    )
    const run = await project.runTests('test/dup.test.ts test/bad-name.test.ts test/bad-row.test.ts', env())
    expect(run.code).toBe(1)
    expect(run.output).toContain(
      '[agent-tape] Duplicate tape name "same" in test/dup.test.ts: the tests "group > same" and "group > same" would share one cassette (group/same.jsonl). Give each tape of a describe block its own name.',
    )
    expect(run.output).toContain('[agent-tape] Invalid tape name "../escape" in test/bad-name.test.ts')
    expect(run.output).toContain('[agent-tape] Invalid tape name "city a/b" in test/bad-row.test.ts')
    expect(run.output).not.toContain('Invalid tape name "city %s"')
    expect(project.cassettes()).toEqual(CASSETTES)
  })

  /** A copy with the obsolete cassettes, and one of a skipped tape, which keeps its name. */
  function withObsolete() {
    const project = copy()
    for (const path of [...OBSOLETE, SKIPPED]) project.write(path, '')
    return project
  }

  it.sequential('lists obsolete cassettes without deleting them, and deletes them with what the list says', async () => {
    const project = withObsolete()
    const run = await project.runTests('test/agent.test.ts test/claude.test.ts', env())
    expect(run.code, run.output).toBe(0)
    expect(run.output).toContain(
      [
        `  Obsolete cassettes (2): no test uses them any more. Delete them, or prune them with ${runner.pruneHint}:`,
        ...OBSOLETE.map((path) => `    ${path}`),
      ].join('\n'),
    )
    expect(run.output).not.toContain('claude-later')
    expect(project.cassettes()).toHaveLength(16)
    const pruned = await runner.prune(project, env())
    expect(pruned.code, pruned.output).toBe(0)
    expect(pruned.output).toContain('  Pruned 2 obsolete cassettes:')
    expect(project.cassettes()).toEqual(KEPT)
  })

  it.sequential("prunes with the switch after a file filter, the filtered file's obsolete cassettes and a deleted file's alike", async () => {
    const project = withObsolete()
    for (const [obsolete, pruned] of [
      [OBSOLETE, '  Pruned 2 obsolete cassettes:'],
      [OBSOLETE.slice(1), '  Pruned 1 obsolete cassette:'],
    ] as const) {
      for (const path of obsolete) project.write(path, '')
      const filtered = await project.runTests('test/agent.test.ts -- --prune-cassettes', env())
      expect(filtered.code, filtered.output).toBe(0)
      expect(filtered.output).toContain(pruned)
      expect(project.cassettes()).toEqual(KEPT)
    }
  })

  // The scenarios below write a test file of their own into the copy, so the counts above stay.
  const unitsTest = testFile(runner, [
    "import { ask } from '../src/agent'",
    '',
    "it.tape('units', async ({ tape }) => {",
    "  const { CITY_UNITS } = tape.env(['CITY_UNITS'])",
    "  expect(await ask('Weather in Oslo?')).toBe('echo: Weather in Oslo?')",
    '  expect(CITY_UNITS).toMatch(/metric|imperial/)',
    '})',
  ])

  it.sequential('fails a tape once when a variable read through tape.env() drifted, and passes when it is restored', async () => {
    const project = copy()
    project.write('test/units.test.ts', unitsTest)
    const record = await project.runTests('test/units.test.ts', { ...env(), CITY_UNITS: 'metric' })
    expect(record.code, record.output).toBe(0)
    const path = 'test/__cassettes__/units.test.ts/units.jsonl'
    const cassette = project.read(path)
    // Only a hash salted per cassette is written, never the value.
    expect(cassette).toContain(`"out":{"CITY_UNITS":"${envHash(cassette, 'metric')}"}`)
    expect(cassette).not.toContain('metric')
    const drift = await project.runTests('test/units.test.ts', { ...env(), CITY_UNITS: 'imperial' })
    expect(drift.code).toBe(1)
    const report = failure(runner, [
      `[agent-tape] Environment drift at step 0: 1 of 1 environment values read through tape.env() differ from the recording (values are compared by hash). Restore the recorded environment, or re-record this test: ${rerecordCommand(runner, 'test/units.test.ts', 'units')}.`,
      '',
      '  cassette  test/__cassettes__/units.test.ts/units.jsonl',
      '',
      `  CITY_UNITS           changed (recorded ${envHash(cassette, 'metric')}, now ${envHash(cassette, 'imperial')})`,
    ])
    expect(count(drift.output, report)).toBe(1)
    expect(drift.output).toContain(runner.tests({ failed: 1 }))
    expect(drift.output).toContain(
      '  test/units.test.ts > units  auto  diverged       2/2         -       0       0',
    )
    expect(project.read(path)).toBe(cassette)
    const restored = await project.runTests('test/units.test.ts', { ...env(), CITY_UNITS: 'metric' })
    expect(restored.code, restored.output).toBe(0)
    expect(restored.output).toContain('agent-tape  1 tape: 1 replayed cleanly, 0 recorded, 0 diverged')
    expect(project.read(path)).toBe(cassette)
  })

  it.sequential('fails a run that stops before the recording did, unless failOnUnused is false', async () => {
    const project = await stoppedEarly(runner, fixture)
    const cassette = project.read('test/__cassettes__/early.test.ts/early.jsonl')
    const strict = await project.runTests('test/early.test.ts', env())
    expect(strict.code).toBe(1)
    expect(count(strict.output, earlyReport(runner))).toBe(1)
    expect(strict.output).toMatch(
      new RegExp(
        `\n${runner.failureIndent} {4}#2 llm:[0-9a-f]{16}, model request \\(gpt-4o-mini\\) at step 2\n`,
      ),
    )
    expect(strict.output).toContain(
      '  test/early.test.ts > early  auto  diverged       1/2         -       0       1',
    )
    configure(runner, project, 'failOnUnused: false')
    const lenient = await project.runTests('test/early.test.ts', env())
    expect(lenient.code, lenient.output).toBe(0)
    expect(lenient.output).toContain('agent-tape  1 tape: 1 replayed cleanly, 0 recorded, 0 diverged')
    expect(lenient.output).toContain(
      '  test/early.test.ts > early  auto  clean        1/2         -       0       1',
    )
    expect(project.read('test/__cassettes__/early.test.ts/early.jsonl')).toBe(cassette)
  })

  it.sequential('in live-tools mode, runs the tools for real against the recorded model, and fails a changed one with the drift report', async () => {
    const project = copy()
    // Live tools record nothing, so CI allows them, with no key for the model.
    const liveTools = { ...env(), AGENT_TAPE_MODE: 'live-tools', CI: 'true' }
    const same = await project.runTests('test/agent.test.ts', liveTools)
    expect(same.code, same.output).toBe(0)
    expect(same.output).toContain('agent-tape  2 tapes: 2 replayed cleanly, 0 recorded, 0 diverged')
    // The weather upstream moved.
    project.write(
      'test/agent.test.ts',
      project.read('test/agent.test.ts').replace('18°C, light rain', '24°C, sunny'),
    )
    const connections = fixture.provider.connections
    const moved = await project.runTests('test/agent.test.ts', liveTools)
    expect(moved.code).toBe(1)
    expect(fixture.provider.connections).toBe(connections)
    expect(moved.output).toContain('[agent-tape] Tool drift at step 1, tool "get_weather"')
    expect(moved.output).toContain('result: "Paris: 18°C, light rain" → "Paris: 24°C, sunny"')
    expect(moved.output).toContain('The model would now see a different input')
    expect(moved.output).toContain(
      '  Drifted tools (2): run live, they returned something other than their recording:',
    )
    expect(moved.output).toContain('    test/agent.test.ts > weather-paris: step 1, tool "get_weather"')
    // Nothing is recorded in this mode.
    expect(project.snapshot('test/__cassettes__')).toEqual(fixture.recorded.snapshot('test/__cassettes__'))
  })
})
