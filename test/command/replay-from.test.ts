import { readFileSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import type { FakeProvider } from '@agent-tape/fake-provider'
import { afterAll, beforeAll, expect, it } from 'vitest'
import { REPO_ROOT } from '../support/fixture-project.js'
import { agentEnv, agentProject, cli, readCassette, startAgentProvider, TASK } from './support.js'

// `agent-tape replay --from <n>`: the first n decisions of a recorded command replayed, the rest
// run live and recorded to a new file, with another model if asked.

let provider: FakeProvider
const project = agentProject('replay-from')
const dir = project.dir
const CASSETTE = 'runs/issue-412.jsonl'
const RESUMED = 'runs/issue-412.from-3.jsonl'
let original = ''

/** The output docs/cli.md shows after `$ npx agent-tape <command>`. */
function documentedOutput(command: string): string {
  const docs = readFileSync(join(REPO_ROOT, 'docs/cli.md'), 'utf8')
  const start = docs.indexOf(`$ npx agent-tape ${command}\n`)
  if (start < 0) throw new Error(`docs/cli.md shows no output of agent-tape ${command}`)
  const text = docs.slice(start).split('\n').slice(1).join('\n')
  return text.slice(0, text.indexOf('```'))
}

beforeAll(async () => {
  provider = await startAgentProvider()
  const recorded = await cli(
    ['record', CASSETTE, '--', 'node', 'agent.mjs', '--task', TASK],
    dir,
    agentEnv(provider),
  )
  expect(recorded.code, recorded.stderr).toBe(0)
  original = readFileSync(join(dir, CASSETTE), 'utf8')
})
afterAll(async () => {
  await provider.close()
  rmSync(dir, { recursive: true, force: true })
})

/** The models of the requests the provider received while `run` ran. */
async function received(run: () => Promise<unknown>): Promise<string[]> {
  const before = provider.requests.length
  await run()
  return provider.requests.slice(before).map((r) => String(r.body.model))
}

it('replays the first 3 decisions and records steps 4 to 12 live to a new file that replays clean; the cassette is unchanged', async () => {
  let run = { code: 0, stderr: '' }
  const models = await received(async () => {
    run = await cli(['replay', '--from', '3', CASSETTE], dir, agentEnv(provider))
  })
  expect(run.code, run.stderr).toBe(0)
  expect(models).toEqual(Array(9).fill('gpt-4o-mini'))
  // What docs/cli.md shows, the task's text left out.
  expect(run.stderr.replace(TASK, '…')).toBe(documentedOutput(`replay --from 3 ${CASSETTE}`))
  expect(readFileSync(join(dir, CASSETTE), 'utf8')).toBe(original)
  const resumed = readCassette(join(dir, RESUMED))
  expect(resumed.header.rerecordedFrom).toEqual({ seq: 4, step: 4, kept: 3 })
  expect(resumed.decisions.map((d) => d.step)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12])
  const recorded = readCassette(join(dir, CASSETTE))
  expect(resumed.decisions.slice(0, 3).map((d) => d.out)).toEqual(
    recorded.decisions.slice(0, 3).map((d) => d.out),
  )

  const before = provider.connections
  const { OPENAI_API_KEY: _key, ...keyless } = agentEnv(provider)
  const replayed = await cli(['replay', RESUMED], dir, keyless)
  expect(replayed.code, replayed.stderr).toBe(0)
  expect(replayed.stderr).toContain(`Replayed ${RESUMED} cleanly: 12 of 12 decisions`)
  expect(provider.connections).toBe(before)
  // Its header's new field is one verify and migrate know.
  const verified = await cli(['verify', RESUMED], dir, {})
  expect(verified.code, verified.output + verified.stderr).toBe(0)
  const migrated = await cli(['migrate', '--check', RESUMED], dir, {})
  expect(migrated.code, migrated.output + migrated.stderr).toBe(0)
})

it('sends the live part to the model --model names, and keeps the requests as the command made them', async () => {
  let run = { code: 0, stderr: '' }
  const models = await received(async () => {
    run = await cli(
      ['replay', '--from', '10', '--model', 'gpt-test-large', '--out', 'runs/large.jsonl', CASSETTE],
      dir,
      agentEnv(provider),
    )
  })
  expect(run.code, run.stderr).toBe(0)
  expect(models).toEqual(['gpt-test-large', 'gpt-test-large'])
  const resumed = readCassette(join(dir, 'runs/large.jsonl'))
  expect(resumed.header.rerecordedFrom).toEqual({ seq: 11, step: 11, kept: 10 })
  // What the command asked for is what a replay of the same command is keyed by.
  const asked = resumed.decisions.map((d) => (d.in as { body: { model: string } }).body.model)
  expect(new Set(asked)).toEqual(new Set(['gpt-4o-mini']))
  const replayed = await cli(['replay', 'runs/large.jsonl'], dir, agentEnv(provider))
  expect(replayed.code, replayed.stderr).toBe(0)
})

it.each([
  [
    ['--from', '0'],
    '--from 0 replays no decision: it counts the decisions replayed before the run goes live, from 1',
  ],
  [['--from=-2'], '--from -2 replays no decision'],
  [['--from', 'three'], '--from takes a whole number of decisions, not "three"'],
  [['--from', '2.5'], '--from takes a whole number of decisions, not "2.5"'],
  [
    ['--from', '12'],
    '--from 12 is beyond the decisions of runs/issue-412.jsonl: it holds 12 decisions, so --from takes 1 to 11',
  ],
  [['--model', 'x'], '--model goes with --from, which was not given'],
])('refuses %j with a usage error, running nothing', async (args, message) => {
  const requests = provider.requests.length
  const run = await cli(['replay', ...args, CASSETTE], dir, agentEnv(provider))
  expect(run.code).toBe(2)
  expect(run.stderr).toContain(message)
  expect(provider.requests.length).toBe(requests)
  expect(readFileSync(join(dir, CASSETTE), 'utf8')).toBe(original)
})

it('is refused in CI unless --allow-ci', async () => {
  const run = await cli(['replay', '--from', '3', CASSETTE], dir, agentEnv(provider, { CI: 'true' }))
  expect(run.code).toBe(2)
  expect(run.stderr).toContain('Refusing to record a command in CI')
})

it('offers the way to run the rest live after a replay that missed, and the command runs as printed', async () => {
  // The tool's answer for charge 5 changes: the request after it misses, past the decisions before it.
  const tools = join(dir, 'tools.mjs')
  const source = readFileSync(tools, 'utf8')
  writeFileSync(tools, source.replace("currency: 'EUR'", "currency: n === 5 ? 'USD' : 'EUR'"))
  try {
    const missed = await cli(['replay', CASSETTE], dir, agentEnv(provider))
    expect(missed.code).not.toBe(0)
    const offer =
      /To run it live from where it changed, keeping the (\d+) decisions before it \(written to a new file; runs\/issue-412\.jsonl is not\): (npx --no-install agent-tape replay --from (\d+) runs\/issue-412\.jsonl)$/m.exec(
        missed.stderr,
      )
    expect(offer, missed.stderr).not.toBeNull()
    const from = Number(offer![1])
    expect(offer![3]).toBe(String(from))
    // The miss is at the first decision not replayed.
    expect(missed.stderr).toContain(`diverged (${from} of 12 recorded decisions replayed)`)
    const requests = provider.requests.length
    const [, ...args] = offer![2]!.split(' ').slice(2)
    const resumed = await cli(args, dir, agentEnv(provider))
    expect(resumed.code, resumed.stderr).toBe(0)
    expect(provider.requests.length - requests).toBe(12 - from)
    const file = readCassette(join(dir, `runs/issue-412.from-${from}.jsonl`))
    expect(file.header.rerecordedFrom).toMatchObject({ kept: from })
    expect(readFileSync(join(dir, CASSETTE), 'utf8')).toBe(original)
  } finally {
    writeFileSync(tools, source)
  }
})
