import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { parseCassette } from '@agent-tape/core'
import { afterAll, expect, it } from 'vitest'
import { FixtureProject, REPO_ROOT } from './support/fixture-project.js'

// Cassettes written before format 2 replay for ever: the support agent example, run by the real
// Vitest in replay mode, over its cassette as format 1 wrote it (every input whole).
const CASSETTE = 'test/__cassettes__/agent.test.ts/issue-412.jsonl'
const FORMAT_1 = join(REPO_ROOT, 'test/fixtures/format-1/support-agent-issue-412.jsonl')
const project = new FixtureProject('format-1-replay', [join(REPO_ROOT, 'examples/support-agent')])

afterAll(() => project.dispose())

it('replays a format-1 cassette through the runner, and leaves it as it was', async () => {
  const text = readFileSync(FORMAT_1, 'utf8')
  const cassette = parseCassette(text, FORMAT_1)
  expect(cassette.header.agentTape).toBe(1)
  expect(text).not.toContain('"patch":')
  project.write(CASSETTE, text)
  const result = await project.run('npx vitest run', { AGENT_TAPE_MODE: 'replay' })
  expect(result.output).toMatch(/Tests\s+1 passed \(1\)/)
  expect(result.code).toBe(0)
  expect(project.read(CASSETTE)).toBe(text)
})
