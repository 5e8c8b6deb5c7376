import { join } from 'node:path'
import type { FakeProvider } from '@agent-tape/fake-provider'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { REPO_ROOT, startCityProvider } from '../support/fixture-project.js'
import { configure, failure, RUNNERS, type Runner, type RunnerProject, testFile } from './runners.js'

// What a change costs, alike in both runners: the budget matchers (numbers per decision), a
// config budget checked recording and replaying, ignored paths in the key, the re-record line
// against the cassette it replaced, and obsolete cassettes failing a run when asked to.

const CLI = join(REPO_ROOT, 'packages/cli/dist/esm/bin.js')

/** The runner's command with agent-tape's switches: after `--` for Vitest, Jest's own CLI for Jest. */
function withSwitches(
  runner: Runner,
  project: RunnerProject,
  args: string,
  switches: string,
  env: Record<string, string>,
) {
  return runner.name === 'Vitest'
    ? project.runTests(`${args} -- ${switches}`, env)
    : project.run(`npx agent-tape-jest ${args} ${switches}`, env)
}

const TOOLS = [
  'const tools = {',
  "  get_weather: async ({ city }: { city: string }) => '18°C in ' + city,",
  "  get_time: async ({ city }: { city: string }) => '14:05 in ' + city,",
  '}',
]

describe.concurrent.each(RUNNERS)('$name', { timeout: 120_000 }, (runner) => {
  let provider: FakeProvider
  const projects: RunnerProject[] = []
  const env = () => ({ FAKE_PROVIDER_URL: provider.url })
  const project = () => {
    const p = runner.project()
    projects.push(p)
    return p
  }

  beforeAll(async () => {
    provider = await startCityProvider(`${runner.name}-cost`)
  })
  afterAll(async () => {
    await provider.close()
    for (const p of projects) p.dispose()
  })

  it.sequential('holds a run to budget matchers, recording and replaying, with the numbers per decision', async () => {
    const p = project()
    p.write(
      'test/budget.test.ts',
      testFile(runner, [
        "import { ask, runAgent } from '../src/agent'",
        ...TOOLS,
        "it.tape('within', async ({ tape }) => {",
        "  expect(await runAgent('What is the weather in Paris?', tape.tools(tools))).toContain('Paris')",
        '  expect(tape).toHaveTakenAtMostSteps(3)',
        '  expect(tape).not.toHaveTakenAtMostSteps(2)',
        '  expect(tape).toHaveUsedAtMostTokens({ input: 100_000, output: 1_000 })',
        '  expect(tape).toHaveCostAtMost(0.01)',
        '})',
        "it.tape('too-many-tokens', async ({ tape }) => {",
        "  await runAgent('What is the weather in Oslo?', tape.tools(tools))",
        '  expect(tape).toHaveUsedAtMostTokens(100)',
        '})',
        "it.tape('too-dear', async ({ tape }) => {",
        "  expect(await ask('Cheap?')).toBe('echo: Cheap?')",
        '  expect(tape).toHaveCostAtMost(0.000001)',
        '})',
      ]),
    )
    const connections = provider.connections
    const recorded = await p.runTests('test/budget.test.ts', env())
    expect(provider.connections).toBeGreaterThan(connections)
    const replayed = await p.runTests('test/budget.test.ts', { ...env(), CI: 'true' })
    for (const run of [recorded, replayed]) {
      expect(run.code, run.output).toBe(1)
      expect(run.output).toContain(runner.tests({ failed: 2, passed: 1 }))
      expect(run.output).toMatch(
        /expected tape "test\/budget\.test\.ts > too-many-tokens" to stay within 100 tokens: the run used ([\d,]+) tokens, over the budget of 100:/,
      )
      // Three model requests of the agent loop, each with its tokens, then the sum.
      expect(run.output.match(/ {2}#\d model request \(gpt-4o\): [\d,]+ in, [\d,]+ out/g)?.length).toBe(3)
      expect(run.output).toMatch(/ {2}in all: [\d,]+ in, [\d,]+ out/)
      // gpt-4o-mini: 10 tokens in at $0.15 per million, 4 out at $0.60.
      expect(run.output).toContain(
        'expected tape "test/budget.test.ts > too-dear" to stay within $0.000001: the run cost $0.0000039, over the budget of $0.000001:',
      )
      expect(run.output).toContain('  #1 model request (gpt-4o-mini): 10 in, 4 out, $0.0000039')
    }
    expect(replayed.output).toContain('replayed')
  })

  it.sequential('fails a tape over the config budget where it is recorded, and again in replay; the cassette is kept', async () => {
    const p = project()
    configure(runner, p, 'budget: { steps: 2, tokens: { output: 10 } }')
    p.write(
      'test/agent-budget.test.ts',
      testFile(runner, [
        "import { runAgent } from '../src/agent'",
        ...TOOLS,
        "it.tape('weather', async ({ tape }) => {",
        "  expect(await runAgent('What is the weather in Paris?', tape.tools(tools))).toContain('Paris')",
        '})',
      ]),
    )
    const record = await p.runTests('test/agent-budget.test.ts', env())
    expect(record.code, record.output).toBe(1)
    expect(p.cassettes()).toContain('test/__cassettes__/agent-budget.test.ts/weather.jsonl')
    const replay = await p.runTests('test/agent-budget.test.ts', { ...env(), CI: 'true' })
    expect(replay.code, replay.output).toBe(1)
    for (const [run, action] of [
      [record, 'recorded'],
      [replay, 'replayed'],
    ] as const) {
      expect(run.output).toMatch(
        new RegExp(
          `\\[agent-tape\\] Tape "test/agent-budget\\.test\\.ts > weather" went over its budget: the run it ${action} took 3 steps, over the budget of 2, and used [\\d,]+ output tokens, over the budget of 10\\.`,
        ),
      )
      expect(run.output).toContain(
        failure(runner, [
          '  step 1: #1 model request (gpt-4o)',
          '  step 2: #3 model request (gpt-4o)',
          '  step 3: #5 model request (gpt-4o)',
        ]),
      )
    }
  })

  it.sequential('replays a per-request id in the body under an ignore; without it, misses naming the path', async () => {
    const p = project()
    const config = p.read(runner.configFile)
    configure(runner, p, "ignore: ['body.trace_id']")
    p.write(
      'test/traced.test.ts',
      testFile(runner, [
        "import { randomUUID } from 'node:crypto'",
        "import { openai } from '../src/agent'",
        "it.tape('traced', async () => {",
        "  const params = { model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'Traced?' }], trace_id: randomUUID() }",
        '  const response = await openai.chat.completions.create(params as never)',
        "  expect((response as { choices: { message: { content: string } }[] }).choices[0]!.message.content).toBe('echo: Traced?')",
        '})',
      ]),
    )
    const cassette = 'test/__cassettes__/traced.test.ts/traced.jsonl'
    const record = await p.runTests('test/traced.test.ts', env())
    expect(record.code, record.output).toBe(0)
    const [header, decision] = p
      .read(cassette)
      .trimEnd()
      .split('\n')
      .map((l) => JSON.parse(l))
    expect(header.ignore).toEqual(['body.trace_id'])
    // Stored, so a person can read it: only the key leaves it out.
    const recordedId = decision.in.body.trace_id as string
    expect(recordedId).toMatch(/^[0-9a-f-]{36}$/)
    expect(decision.wire).toBeUndefined()

    const connections = provider.connections
    const replay = await p.runTests('test/traced.test.ts', { ...env(), CI: 'true' })
    expect(replay.code, replay.output).toBe(0)
    expect(provider.connections).toBe(connections)

    const show = await p.run(`"${process.execPath}" "${CLI}" show ${cassette}`)
    expect(show.stdout).toContain('  ignored    body.trace_id (left out of every key; stored, redacted)')

    p.write(runner.configFile, config)
    const miss = await p.runTests('test/traced.test.ts', { ...env(), CI: 'true' })
    expect(miss.code, miss.output).toBe(1)
    expect(miss.output).toMatch(new RegExp(`body\\.trace_id: "${recordedId}" → "[0-9a-f-]{36}"`))
  })

  it.sequential('reports a re-record against the cassette it replaced, as agent-tape diff does', async () => {
    const p = project()
    const asking = (questions: string[]) =>
      testFile(runner, [
        "import { ask } from '../src/agent'",
        "it.tape('asks', async () => {",
        ...questions.map((q) => `  expect(await ask('${q}')).toBe('echo: ${q}')`),
        '})',
      ])
    p.write('test/asks.test.ts', asking(['First?']))
    expect((await p.runTests('test/asks.test.ts', env())).code).toBe(0)
    const cassette = 'test/__cassettes__/asks.test.ts/asks.jsonl'
    p.write('before.jsonl', p.read(cassette))
    p.write('test/asks.test.ts', asking(['First?', 'Second?']))
    const update = await withSwitches(runner, p, 'test/asks.test.ts', '--update-cassettes', env())
    expect(update.code, update.output).toBe(0)
    // gpt-4o-mini: 10 in and 4 out per question.
    const line = 'asks: 1 → 2 decisions, 14 → 28 tokens (+100%), $0.0000039 → $0.0000078'
    expect(update[runner.summaryStream]).toContain(
      ['  Re-recorded (1), against the cassette each replaced:', `    ${line}`].join('\n'),
    )
    expect(update[runner.summaryStream]).toContain(
      'recorded 28 tokens ≈ $0.0000078, spent by this run (20 in, 8 out)',
    )
    const diff = await p.run(`"${process.execPath}" "${CLI}" diff before.jsonl ${cassette}`)
    expect(diff.stdout.trimEnd().split('\n').at(-1)).toBe(line)
  })

  it.sequential('lists obsolete cassettes by default, and fails on them with failOnObsolete or --fail-on-obsolete, shard by shard', async () => {
    const p = project()
    for (const name of ['alpha', 'beta']) {
      p.write(
        `test/${name}.test.ts`,
        testFile(runner, [
          "import { ask } from '../src/agent'",
          `it.tape('${name}', async () => {`,
          `  expect(await ask('${name}?')).toBe('echo: ${name}?')`,
          '})',
        ]),
      )
    }
    const files = 'test/alpha.test.ts test/beta.test.ts'
    expect((await p.runTests(files, env())).code).toBe(0)
    const gone = 'test/__cassettes__/alpha.test.ts/gone.jsonl'
    p.write(gone, p.read('test/__cassettes__/alpha.test.ts/alpha.jsonl'))

    const notice = await p.runTests(files, { ...env(), CI: 'true' })
    expect(notice.code, notice.output).toBe(0)
    expect(notice[runner.summaryStream]).toContain(
      '  Obsolete cassettes (1): no test uses them any more. Delete them',
    )
    expect(notice.output).not.toContain('failOnObsolete')

    const reason = `[agent-tape] The run found 1 obsolete cassette: no test uses ${gone} any more, and failOnObsolete is set.`
    const flagged = await withSwitches(runner, p, files, '--fail-on-obsolete', { ...env(), CI: 'true' })
    expect(flagged.code, flagged.output).toBe(1)
    expect(flagged.output).toContain(reason)
    expect(flagged.output).toContain('no test uses them any more, and fail this run (failOnObsolete)')

    // A shard lists only the cassettes of the files it ran: the one without alpha.test.ts passes.
    const shards = await Promise.all(
      ['1/2', '2/2'].map((shard) =>
        withSwitches(runner, p, `${files} --shard=${shard}`, '--fail-on-obsolete', { ...env(), CI: 'true' }),
      ),
    )
    const withAlpha = shards.map((run) => run[runner.summaryStream].includes('test/alpha.test.ts > alpha'))
    expect(withAlpha.filter(Boolean)).toHaveLength(1)
    shards.forEach((run, i) => {
      expect(run.code, run.output).toBe(withAlpha[i] ? 1 : 0)
      expect(run.output.includes(reason)).toBe(withAlpha[i])
    })

    const config = p.read(runner.configFile)
    configure(runner, p, 'failOnObsolete: true')
    const configured = await p.runTests(files, { ...env(), CI: 'true' })
    expect(configured.code, configured.output).toBe(1)
    expect(configured.output).toContain(reason)
    p.write(runner.configFile, config)
  })
})
