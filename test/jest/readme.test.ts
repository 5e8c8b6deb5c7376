import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { type FakeProvider, startFakeProvider } from '@agent-tape/fake-provider'
import { afterAll, beforeAll, expect, it } from 'vitest'
import { readReadmeSection } from '../support/readme-section.js'
import { JestProject, REPO_ROOT } from './support/jest-project.js'

// The README's Jest section, followed by a newcomer in an empty project: its files are the
// snippets marked `<!-- readme-project: <path> -->`, its commands are the ones it documents.
// Each command starts Jest through npx: the test that runs them one after another takes about 16 s
// on a quiet 2-core machine and has gone past 30 s on a loaded one, so it is given 120 s.
const { section, snippets } = readReadmeSection('Jest')

let provider: FakeProvider
let project: JestProject

beforeAll(async () => {
  provider = await startFakeProvider({
    seed: 'readme',
    reply: () => ({ text: 'Refund', usage: { inputTokens: 52, outputTokens: 9 } }),
  })
  project = new JestProject('readme')
  for (const { path, code } of snippets) project.write(path, code)
})

afterAll(async () => {
  await provider.close()
  project.dispose()
})

it('takes a newcomer from an empty project to a replaying Jest test with the documented commands', async () => {
  expect(snippets.map((s) => s.path)).toEqual(['jest.config.js', 'src/triage.ts', 'test/triage.test.ts'])
  const env = { OPENAI_BASE_URL: provider.openaiBaseURL, OPENAI_API_KEY: 'sk-readme-test' }
  const commands = {
    run: 'npx jest',
    all: 'npx agent-tape-jest --update-cassettes',
    one: "npx --no-install agent-tape-jest test/triage.test.ts -t '^double-charge$' --update-cassettes",
    plain: 'npx jest test/triage.test.ts -- --update-cassettes',
    script: 'AGENT_TAPE_MODE=update npx jest',
  }
  // The quickstart shows how to run; the reference page, how to re-record.
  const reference = readReadmeSection('Re-recording with Jest', 'docs/jest.md').section
  for (const command of Object.values(commands)) expect(`${section}${reference}`).toContain(command)
  expect(section).toContain(commands.run)

  const first = await project.run(commands.run, env)
  expect(first.code, first.output).toBe(0)
  expect(project.cassettes()).toEqual(['test/__cassettes__/triage.test.ts/double-charge.jsonl'])
  const connections = provider.connections
  expect(connections).toBeGreaterThan(0)

  const second = await project.run(commands.run, env)
  expect(second.code, second.output).toBe(0)
  expect(provider.connections).toBe(connections)
  // The summary shown in the README is the one this run prints.
  const summary = /```text\n(agent-tape {2}1 tape[\s\S]*?)\n```/.exec(section)?.[1]
  expect(summary).toBeDefined()
  expect(second.output).toContain(summary)

  // A CI job has no API key: the client built at import time still constructs, and nothing leaves.
  const keyless = await project.run(commands.run, { CI: 'true' })
  expect(keyless.code, keyless.output).toBe(0)
  expect(provider.connections).toBe(connections)

  for (const command of [commands.all, commands.one, commands.plain, commands.script]) {
    const update = await project.run(command, env)
    expect(update.code, update.output).toBe(0)
    expect(update.output).toContain('agent-tape  1 tape: 0 replayed cleanly, 1 recorded, 0 diverged')
  }
  expect(provider.connections).toBe(connections + 4)
}, 120_000)

it('type-checks the README project and the typed examples of docs/jest.md under strict TypeScript, with the documented types setup', async () => {
  const typed = [
    ...readFileSync(join(REPO_ROOT, 'docs/jest.md'), 'utf8').matchAll(
      /<!-- readme-types: (\S+) -->\n```ts\n([\s\S]*?)```/g,
    ),
  ]
  expect(typed.length).toBeGreaterThan(0)
  for (const [, path, code] of typed) project.write(path!, code!)
  // The README: install @types/jest and list both in the tests' tsconfig.json.
  const tsc = await project.typeCheck(['src', 'test'], ['node', 'jest', '@agent-tape/jest'])
  expect(tsc.code, tsc.output).toBe(0)
})
