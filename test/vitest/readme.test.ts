import { mkdtempSync, readFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { type FakeProvider, startFakeProvider } from '@agent-tape/fake-provider'
import { afterAll, beforeAll, expect, it } from 'vitest'
import { parse } from 'yaml'
import { readReadmeSection } from '../support/readme-section.js'
import { VitestProject } from './support/vitest-project.js'

// The README's Vitest section, followed by a newcomer in an empty project: its files are the
// snippets marked `<!-- readme-project: <path> -->`, its commands are the ones it documents.
// Each command starts a process through npx, most of them a runner: the tests that run them one after
// another take about 12 s on a quiet 2-core machine and have gone past 30 s on a loaded one, so they
// are given 120 s.
const { section, snippets } = readReadmeSection('Vitest')

let provider: FakeProvider
let project: VitestProject

beforeAll(async () => {
  provider = await startFakeProvider({
    seed: 'readme',
    reply: () => ({ text: 'Refund', usage: { inputTokens: 52, outputTokens: 9 } }),
  })
  project = new VitestProject('readme')
  // Step 1's commands as written, but for the install, which the linked node_modules stands in
  // for: the fixture's package.json is the one `npm install` writes in an empty folder.
  const setup = /\*\*1\. Install\*\*[\s\S]*?```sh\n([\s\S]*?)```/.exec(section)?.[1]?.trim().split('\n') ?? []
  expect(setup.at(-1)).toBe('npm install -D vitest openai')
  for (const command of setup.slice(0, -1)) {
    const result = await project.run(command)
    expect(result.code, `${command}\n${result.output}`).toBe(0)
  }
  for (const { path, code } of snippets) project.write(path, code)
}, 60_000)

/** Vite's warning for a config loaded as CommonJS, which a project without "type": "module" prints on every run. */
const CJS_WARNING = /configLoader|loaded as CommonJS|CJS build of Vite/

afterAll(async () => {
  await provider.close()
  project.dispose()
})

it('takes a newcomer from an empty project to a replaying test with the documented commands', async () => {
  expect(snippets.map((s) => s.path)).toEqual(['vitest.config.ts', 'src/triage.ts', 'test/triage.test.ts'])
  const env = { OPENAI_BASE_URL: provider.openaiBaseURL, OPENAI_API_KEY: 'sk-readme-test' }
  const commands = {
    run: 'npx vitest run',
    one: "npx vitest run test/triage.test.ts -t '^double-charge$' -- --update-cassettes",
  }
  // The quickstart shows how to run; the reference page, how to re-record.
  const reference = readReadmeSection('Re-recording', 'docs/vitest.md').section
  for (const command of Object.values(commands)) expect(`${section}${reference}`).toContain(command)
  expect(section).toContain(commands.run)

  const first = await project.run(commands.run, env)
  expect(first.code, first.output).toBe(0)
  expect(first.output).not.toMatch(CJS_WARNING)
  expect(JSON.parse(project.read('package.json')).type).toBe('module')
  expect(project.cassettes()).toEqual(['test/__cassettes__/triage.test.ts/double-charge.jsonl'])
  expect(provider.connections).toBeGreaterThan(0)

  const connections = provider.connections
  const second = await project.run(commands.run, env)
  expect(second.code, second.output).toBe(0)
  expect(provider.connections).toBe(connections)
  // The summary shown in the README is the one this run prints.
  const summary = /```text\n(agent-tape {2}1 tape[\s\S]*?)\n```/.exec(section)?.[1]
  expect(summary).toBeDefined()
  expect(second.output).toContain(summary)

  // A CI job has no API key: the client the quickstart builds at import time still constructs,
  // and the replay reaches no provider.
  const keyless = await project.run(commands.run, { CI: 'true' })
  expect(keyless.code, keyless.output).toBe(0)
  expect(keyless.output).not.toMatch(CJS_WARNING)
  expect(keyless.output).toContain('1 tape: 1 replayed cleanly, 0 recorded, 0 diverged')
  expect(provider.connections).toBe(connections)

  const update = await project.run(commands.one, env)
  expect(update.code, update.output).toBe(0)
  expect(update.output).toContain('agent-tape  1 tape: 0 replayed cleanly, 1 recorded, 0 diverged')
  expect(update.output).toMatch(/test\/triage\.test\.ts > double-charge +update +recorded/)
  expect(provider.connections).toBeGreaterThan(connections)
}, 120_000)

/** A step's variables, the secret the workflow reads being this machine's fake key. */
const keyFor = (env: Record<string, string>) =>
  Object.fromEntries(Object.entries(env).map(([k, v]) => [k, v.startsWith('${{') ? 'sk-ci-test' : v]))

interface WorkflowStep {
  run?: string
  uses?: string
  env?: Record<string, string>
}

it("runs the steps of the README's GitHub Actions workflow: replay and verify, the drift job, then the re-record job", async () => {
  const ci = readReadmeSection('In CI').section
  const yaml = /<!-- readme-ci -->\n```yaml\n([\s\S]*?)```/.exec(ci)?.[1]
  expect(yaml).toBeDefined()
  const workflow = parse(yaml!) as { jobs: Record<string, { steps: WorkflowStep[] }> }
  const commands = (job: string) =>
    workflow.jobs[job]!.steps.filter((s) => s.run?.startsWith('npx ')).map((s) => ({
      run: s.run!,
      env: s.env ?? {},
    }))
  expect(commands('replay').map((c) => c.run)).toEqual(['npx vitest run', 'npx agent-tape verify --strict'])
  expect(commands('rerecord').map((c) => c.run)).toEqual([
    'npx vitest run -- --update-cassettes',
    'npx agent-tape verify',
  ])

  // GitHub Actions sets CI and GITHUB_STEP_SUMMARY; the job has no provider key.
  const summary = join(mkdtempSync(join(tmpdir(), 'agent-tape-ci-')), 'summary.md')
  const actions = { CI: 'true', GITHUB_STEP_SUMMARY: summary }
  for (const { run, env } of commands('replay')) {
    const result = await project.run(run, { ...actions, ...env })
    expect(result.code, `${run}\n${result.output}`).toBe(0)
  }
  expect(readFileSync(summary, 'utf8')).toContain('1 replayed cleanly')

  // The drift job: the tests run live against the provider, which answers as it did; the
  // committed cassette is only read, and the job's summary says what moved.
  expect(commands('drift').map((c) => c.run)).toEqual([
    'npx agent-tape drift --budget-usd 1 --markdown "$GITHUB_STEP_SUMMARY"',
  ])
  const cassette = project.read('test/__cassettes__/triage.test.ts/double-charge.jsonl')
  const sent = provider.requests.length
  for (const { run, env } of commands('drift')) {
    const result = await project.run(run, {
      ...actions,
      ...keyFor(env),
      OPENAI_BASE_URL: provider.openaiBaseURL,
    })
    expect(result.code, `${run}\n${result.output}`).toBe(0)
    expect(result.output).toContain('agent-tape drift: 1 test: 1 unchanged')
  }
  expect(provider.requests.length).toBeGreaterThan(sent)
  expect(project.read('test/__cassettes__/triage.test.ts/double-charge.jsonl')).toBe(cassette)
  expect(readFileSync(summary, 'utf8')).toContain('| unchanged | test/triage.test.ts > double-charge |  |')

  const before = provider.connections
  for (const { run, env } of commands('rerecord')) {
    const result = await project.run(run, {
      ...actions,
      ...keyFor(env),
      OPENAI_BASE_URL: provider.openaiBaseURL,
    })
    expect(result.code, `${run}\n${result.output}`).toBe(0)
  }
  expect(provider.connections).toBeGreaterThan(before)
  expect(readFileSync(summary, 'utf8')).toContain('1 recorded')
}, 120_000)

it('type-checks the README project under strict TypeScript', async () => {
  const tsc = await project.typeCheck(['src', 'test', 'vitest.config.ts'], ['node'])
  expect(tsc.code, tsc.output).toBe(0)
})
