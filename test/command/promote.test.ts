import { rmSync } from 'node:fs'
import { join } from 'node:path'
import type { FakeProvider } from '@agent-tape/fake-provider'
import { afterAll, beforeAll, expect, it } from 'vitest'
import { REPO_ROOT } from '../support/fixture-project.js'
import { agentEnv, agentProject, cli, startAgentProvider, TASK } from './support.js'

// A failing run of a CLI agent, recorded where it happened with `agent-tape record`, promoted
// into a test with `agent-tape promote`: the test replays the command with no network and no
// key, in Vitest and in Jest, and fails once the agent's prompt changes.
let provider: FakeProvider
const project = agentProject('promote-command')
const dir = project.dir

beforeAll(async () => {
  provider = await startAgentProvider()
  project.write('runs/.keep', '')
  const recorded = await cli(
    ['record', 'runs/issue-412.jsonl', '--', 'node', 'agent.mjs', '--task', TASK],
    dir,
    agentEnv(provider),
  )
  expect(recorded.code, recorded.stderr).toBe(0)
})
afterAll(async () => {
  await provider.close()
  rmSync(dir, { recursive: true, force: true })
})

/** The runner's environment: no API key, no provider URL to fall back on. */
const noKey = { OPENAI_API_KEY: '', ANTHROPIC_API_KEY: '', OPENAI_BASE_URL: '', ANTHROPIC_BASE_URL: '' }

it('promotes a recorded command into a Vitest test that replays it with no network and no key', async () => {
  const promoted = await cli(
    [
      'promote',
      'runs/issue-412.jsonl',
      '--name',
      'issue-412',
      '--test',
      'test/agent.test.ts',
      '--runner',
      'vitest',
    ],
    dir,
    {},
  )
  expect(promoted.code, promoted.stderr).toBe(0)
  expect(promoted.output).toContain('Wrote test/__cassettes__/agent.test.ts/issue-412.jsonl (12 decisions).')
  expect(promoted.output).toContain('Wrote test/agent.test.ts with the test "issue-412".')
  const test = project.read('test/agent.test.ts')
  expect(test).toBe(
    [
      "import { fileURLToPath } from 'node:url'",
      "import { replayCommand } from '@agent-tape/cli'",
      "import { expect, it } from 'vitest'",
      '',
      `// Recorded command: node agent.mjs --task ${TASK} (in .), recorded ${test.match(/recorded (\S+)\./)?.[1]}.`,
      '// It exited with code 0; once the failure is fixed, re-record it and assert the code it should exit with.',
      "it('issue-412', async () => {",
      "  const run = await replayCommand(fileURLToPath(new URL('./__cassettes__/agent.test.ts/issue-412.jsonl', import.meta.url)))",
      '  // The report says where the replay left the recording, with the diff.',
      '  if (!run.clean) throw new Error(run.report)',
      '  expect(run.exitCode).toBe(0)',
      '}, 120_000)',
      '',
    ].join('\n'),
  )
  const connections = provider.connections
  const vitest = join(REPO_ROOT, 'node_modules/vitest/vitest.mjs')
  const run = await project.run(`"${process.execPath}" "${vitest}" run test/agent.test.ts`, noKey)
  expect(run.code, run.output).toBe(0)
  expect(run.output).toMatch(/Tests\s+1 passed \(1\)/)
  expect(provider.connections).toBe(connections)

  // The prompt changes: the replay misses, and the test says where, with the diff.
  const source = project.read('prompt.mjs')
  project.write('prompt.mjs', source.replace('then answer in one sentence', 'then answer in two sentences'))
  const edited = await project.run(`"${process.execPath}" "${vitest}" run test/agent.test.ts`, noKey)
  project.write('prompt.mjs', source)
  expect(edited.code).toBe(1)
  expect(edited.output).toContain('Replay miss at step 1')
  expect(provider.connections).toBe(connections)
}, 180_000)

it('promotes a recorded command into a Jest test that replays it', async () => {
  project.remove('test/agent.test.ts')
  project.write('jest.config.cjs', 'module.exports = { testEnvironment: "node", transform: {} }\n')
  const promoted = await cli(
    [
      'promote',
      'runs/issue-412.jsonl',
      '--name',
      'jest-412',
      '--test',
      'test/agent.test.cjs',
      '--runner',
      'jest',
    ],
    dir,
    {},
  )
  expect(promoted.code, promoted.stderr).toBe(0)
  const test = project.read('test/agent.test.cjs')
  expect(test).toContain(
    "  const run = await replayCommand(join(__dirname, '__cassettes__', 'agent.test.cjs', 'jest-412.jsonl'))",
  )
  const connections = provider.connections
  const jest = join(REPO_ROOT, 'node_modules/jest/bin/jest.js')
  const run = await project.run(
    `"${process.execPath}" "${jest}" --config jest.config.cjs --testMatch '**/test/*.test.cjs'`,
    noKey,
  )
  expect(run.code, run.output).toBe(0)
  expect(run.output).toMatch(/Tests:\s+1 passed, 1 total/)
  expect(provider.connections).toBe(connections)
}, 180_000)

it('refuses --entry for a recorded command, writing nothing', async () => {
  const refused = await cli(
    [
      'promote',
      'runs/issue-412.jsonl',
      '--name',
      'entry',
      '--test',
      'test/entry.test.ts',
      '--entry',
      'run-agent.mjs#runAgent',
    ],
    dir,
    {},
  )
  expect(refused.code).toBe(2)
  expect(refused.stderr).toContain(
    'it records a command (agent-tape record), which its test runs again as a command',
  )
  expect(() => project.read('test/entry.test.ts')).toThrow()
  expect(() => project.read('test/__cassettes__/entry.test.ts/entry.jsonl')).toThrow()
})
