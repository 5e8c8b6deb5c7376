import { mkdtempSync, readFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { type FakeProvider, startFakeProvider, type Turn } from '@agent-tape/fake-provider'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { runCli } from '../cli/support/cli.js'
import { REPO_ROOT, type RunResult } from '../support/fixture-project.js'
import { configure, RUNNERS, type Runner, type RunnerProject, testFile } from './runners.js'

// `agent-tape drift` on real Vitest and Jest projects: a small suite recorded once per runner,
// then the world moved under it in one way per case (the model, a tool, the code), each drift run
// classifying every test without ever touching the committed cassettes.

const CLI = join(REPO_ROOT, 'packages/cli/dist/esm/bin.js')
const KEY = `sk-proj-${'Dr1ftK3y'.repeat(6)}`

/** What the fake model does, changed by the cases: its prefix for answers without tools, and the tokens it served. */
interface Script {
  prefix: string
  tokens: number
}

/** The city agent's model: a tool loop (60 tokens a turn, 134 the answer) and an echo (14 tokens). */
function reply(script: Script, body: Record<string, unknown>): Turn {
  const messages = (body.messages ?? []) as { role: string; content?: unknown }[]
  const question = String(messages.find((m) => m.role === 'user')?.content ?? '')
  const turn = (t: Turn, input: number, output: number): Turn => {
    script.tokens += input + output
    return { ...t, usage: { inputTokens: input, outputTokens: output } }
  }
  if (!body.tools) return turn({ text: `${script.prefix}: ${question}` }, 10, 4)
  const city = /in (\w+)\?/.exec(question)?.[1] ?? 'Nowhere'
  const seen = messages.filter((m) => m.role === 'tool')
  if (seen.length === 0) return turn({ toolCalls: [{ name: 'get_weather', args: { city } }] }, 50, 10)
  if (seen.length === 1) return turn({ toolCalls: [{ name: 'get_time', args: { city } }] }, 50, 10)
  return turn({ text: `In ${city}: ${seen.map((m) => String(m.content)).join(', ')}.` }, 120, 14)
}

/** Two test files, so that the tapes run in two workers: a tool loop, an echo, and a prompt holding a key. */
function writeSuite(runner: Runner, project: RunnerProject): void {
  project.remove('test/agent.test.ts')
  project.remove('test/claude.test.ts')
  project.remove('test/concurrent.test.ts')
  project.write('weather.txt', '18°C')
  project.write(
    'test/weather.test.ts',
    testFile(runner, [
      "import { readFileSync } from 'node:fs'",
      "import { runAgent } from '../src/agent'",
      'const tools = {',
      // The weather service's answer comes from a file the cases change.
      "  get_weather: async ({ city }: { city: string }) => readFileSync('weather.txt', 'utf8').trim() + ' in ' + city,",
      "  get_time: async ({ city }: { city: string }) => '14:05 in ' + city,",
      '}',
      "it.tape('paris', async ({ tape }) => {",
      "  expect(await runAgent('What is the weather in Paris?', tape.tools(tools))).toContain('Paris')",
      '})',
    ]),
  )
  project.write('test/echo.test.ts', echoFile(runner, 'valid'))
  configure(runner, project, `allowSecrets: ['${KEY}']`)
}

/** The echo tests, the keyed one asking whether the key is `word`; `added` adds a test never recorded. */
function echoFile(runner: Runner, word: string, added = false): string {
  return testFile(runner, [
    "import { ask } from '../src/agent'",
    "it.tape('hello', async () => {",
    "  expect(await ask('Hello?')).toContain('Hello?')",
    '})',
    "it.tape('keyed', async () => {",
    `  expect(await ask('Is ${KEY} ${word}?')).toContain('${word}')`,
    '})',
    ...(added
      ? ["it.tape('added', async () => {", "  expect(await ask('New?')).toContain('New?')", '})']
      : []),
  ])
}

/** The output docs/cli.md shows after `$ npx agent-tape <command>`. */
function documentedOutput(command: string): string {
  const docs = readFileSync(join(REPO_ROOT, 'docs/cli.md'), 'utf8')
  const match = new RegExp(`\\$ npx agent-tape ${command}\\n([\\s\\S]*?)\`\`\``).exec(docs)
  if (!match) throw new Error(`docs/cli.md shows no output of agent-tape ${command}`)
  return match[1]!
}

const PARIS = 'test/weather.test.ts > paris'
const HELLO = 'test/echo.test.ts > hello'
const KEYED = 'test/echo.test.ts > keyed'

interface DriftJson {
  counts: Record<string, number>
  tests: { test: string; cassette: string; class: string; first?: { where: string; what: string } }[]
  spend: { sent: number; refused: number; tokens: number; usd: number }
  exitCode: number
}

describe('bad input', () => {
  const empty = () => mkdtempSync(join(tmpdir(), 'agent-tape-drift-args-'))

  it('names the class --fail-on does not know, and the budget that is not a number, running nothing', async () => {
    const dir = empty()
    expect(await runCli(['drift', '--fail-on', 'model,weather'], dir)).toEqual({
      code: 2,
      stdout: '',
      stderr:
        '[agent-tape] Invalid arguments for agent-tape drift: --fail-on "model,weather" names no class "weather"; the classes are model, tools, code, budget, error. Name one or more, comma-separated: --fail-on model,tools.\n',
    })
    expect((await runCli(['drift', '--budget-usd', 'one'], dir)).stderr).toBe(
      '[agent-tape] Invalid arguments for agent-tape drift: --budget-usd "one" is not an amount in US dollars. Give dollars: --budget-usd 1.50.\n',
    )
    expect((await runCli(['drift', '--budget-tokens', '2.5'], dir)).stderr).toContain(
      '--budget-tokens "2.5" is not a whole number of tokens',
    )
  })

  it('says how to give the test command when the project names no runner, or when it runs no tape', async () => {
    const dir = empty()
    const none = await runCli(['drift'], dir)
    expect(none.code).toBe(2)
    expect(none.stderr).toBe(
      `[agent-tape] Invalid arguments for agent-tape drift: cannot tell how ${dir} runs its tests: it has no Vitest or Jest config file, and its package.json names neither. Give the test command after --: agent-tape drift -- npx vitest run.\n`,
    )
    const failing = await runCli(
      ['drift', '--', process.execPath, '-e', 'console.log("no tests here"); process.exit(3)'],
      dir,
    )
    expect(failing.code).toBe(2)
    expect(failing.stderr).toContain('no tests here')
    expect(failing.stderr).toContain(
      ' exited with 3 in the replay run before any tape ran: it printed the output above.',
    )
  })
})

describe.concurrent.each(RUNNERS)('$name', { timeout: 120_000 }, (runner) => {
  const script: Script = { prefix: 'echo', tokens: 0 }
  let provider: FakeProvider
  let recorded: RunnerProject
  let committed: Record<string, string>
  const projects: RunnerProject[] = []
  const env = () => ({ FAKE_PROVIDER_URL: provider.url })

  /** A copy of the recorded project, whose committed cassettes are checked after each run of drift. */
  const copy = () => {
    const project = runner.project(recorded)
    projects.push(project)
    return project
  }
  const drift = async (project: RunnerProject, args: string, extra: Record<string, string> = {}) => {
    const run = await project.run(`node "${CLI}" drift ${args}`, { ...env(), ...extra })
    // The committed cassettes, byte for byte, and no other cassette beside them.
    expect(project.snapshot('test'), run.output).toEqual(committedIn(project))
    return run
  }
  const committedIn = (project: RunnerProject) => ({
    ...committed,
    'test/weather.test.ts': project.read('test/weather.test.ts'),
    'test/echo.test.ts': project.read('test/echo.test.ts'),
  })
  const json = (run: RunResult): DriftJson => JSON.parse(run.stdout) as DriftJson
  const row = (report: DriftJson, test: string) => report.tests.find((t) => t.test === test)

  beforeAll(async () => {
    provider = await startFakeProvider({
      seed: `${runner.name}-drift`,
      reply: ({ body }) => reply(script, body),
    })
    recorded = runner.project()
    projects.push(recorded)
    writeSuite(runner, recorded)
    const run = await recorded.runTests('', env())
    expect(run.code, run.output).toBe(0)
    committed = recorded.snapshot('test')
    expect(Object.keys(committed).filter((p) => p.endsWith('.jsonl'))).toHaveLength(3)
  }, 120_000)

  afterAll(async () => {
    await provider.close()
    for (const project of projects) project.dispose()
  })

  it.sequential('says unchanged when nothing moved, and exits 0', async () => {
    const run = await drift(copy(), '')
    expect(run.code, run.output).toBe(0)
    expect(run.stdout).toContain('agent-tape drift: 3 tests: 3 unchanged')
    expect(run.stdout).toMatch(new RegExp(`\\n {2}unchanged {2}${PARIS}\\n`))
    expect(run.stdout).toContain('5 live model requests sent; 282 tokens')
  })

  it.sequential('says model when the model answers the same request differently; --fail-on tools exits 0 for it', async () => {
    script.prefix = 'said'
    try {
      const run = await drift(copy(), '--fail-on tools --json')
      expect(run.code, run.output).toBe(0)
      const report = json(run)
      expect(report.counts).toMatchObject({ unchanged: 1, model: 2, tools: 0, code: 0 })
      expect(row(report, PARIS)?.class).toBe('unchanged')
      expect(row(report, HELLO)).toEqual({
        test: HELLO,
        cassette: 'test/__cassettes__/echo.test.ts/hello.jsonl',
        class: 'model',
        first: {
          where: 'step 1, model request (gpt-4o-mini)',
          what: expect.stringMatching(/^text: .*echo.* → .*said/),
        },
      })
      // The key in the prompt is in the changed answer, and nowhere in what drift prints.
      expect(row(report, KEYED)?.first?.what).toContain('[REDACTED')
      expect(run.output).not.toContain(KEY)
      expect(report.exitCode).toBe(0)
    } finally {
      script.prefix = 'echo'
    }
  })

  it.sequential('says tools for a tool that answers differently, and code for an edited prompt and a new test, which send nothing live', async () => {
    const project = copy()
    project.write('weather.txt', '21°C')
    project.write('test/echo.test.ts', echoFile(runner, 'current', true))
    const before = provider.requests.length
    const summary = join(project.dir, 'summary.md')
    const run = await drift(project, '--markdown drift.md', { GITHUB_STEP_SUMMARY: summary })
    expect(run.code, run.output).toBe(1)
    expect(run.stdout).toContain('agent-tape drift: 4 tests: 1 unchanged, 1 tools, 2 code')
    expect(run.stdout).toContain(
      '\n  code       test/echo.test.ts > added     replay: no committed cassette (a new test: a run in mode auto records it)\n',
    )
    const tools = `step 1, tool "get_weather": result: "18°C in Paris" → "21°C in Paris"`
    expect(run.stdout).toContain(`\n  tools      ${PARIS}  ${tools}\n`)
    expect(run.stdout).toMatch(
      new RegExp(
        `\\n {2}code {7}${KEYED} {5}step 1, model request \\(gpt-4o-mini\\): request changed: body\\.messages\\[0\\]\\.content: .*\\[REDACTED.* → .*current`,
      ),
    )
    expect(run.stderr).toContain('Drift found: tools, code (--fail-on model,tools,code,error)')
    // docs/cli.md shows this run's output.
    expect(run.stdout).toBe(documentedOutput('drift --markdown drift.md'))
    // The edited prompt's test and the new one made no live request: only the unchanged one and the tool loop did.
    const sent = provider.requests.slice(before).map((r) => JSON.stringify(r.body))
    expect(sent.filter((body) => body.includes('Hello?'))).toHaveLength(1)
    expect(sent.filter((body) => /current|New\?/.test(body) || body.includes(KEY))).toEqual([])
    expect(sent).toHaveLength(4)
    const markdown = project.read('drift.md')
    expect(markdown).toContain('| class | test | first change |')
    expect(markdown).toContain(
      `| tools | ${PARIS} | step 1, tool "get_weather": \`result: "18°C in Paris" → "21°C in Paris"\` |`,
    )
    // The job summary gets the same, and no more of the key than the terminal did.
    expect(readFileSync(summary, 'utf8')).toBe(markdown)
    for (const printed of [run.output, markdown]) expect(printed).not.toContain(KEY.slice(12))
  })

  it.sequential('refuses the request that would go over the budget, sends nothing after it, and says the test did not run', async () => {
    const before = { tokens: script.tokens, requests: provider.requests.length }
    // The tool loop's cassette alone: its three requests are estimated at 60, 60 and 134 tokens.
    const run = await drift(copy(), '--budget-tokens 100 --json test/__cassettes__/weather.test.ts')
    const report = json(run)
    expect(report.tests).toEqual([
      {
        test: PARIS,
        cassette: 'test/__cassettes__/weather.test.ts/paris.jsonl',
        class: 'budget',
        first: {
          where: 'live run',
          what: `Not sent: the model request at step 2 of "${PARIS}" is over the drift run's budget of 100 tokens: 60 tokens were spent or held, and this request is estimated at 60 more from its committed recording`,
        },
      },
    ])
    expect(report.spend).toEqual({
      sent: 1,
      refused: 1,
      tokens: 60,
      usd: expect.any(Number),
      budget: { tokens: 100 },
    })
    // What the fake model served: the first request, whose 60 tokens fit; not the second.
    expect(provider.requests.length - before.requests).toBe(1)
    expect(script.tokens - before.tokens).toBe(60)
    // Not run is no drift: the default --fail-on leaves it out.
    expect(run.code, run.output).toBe(0)
  })
})
