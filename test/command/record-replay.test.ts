import { readFileSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { replayCommand } from '@agent-tape/cli'
import type { FakeProvider } from '@agent-tape/fake-provider'
import { afterAll, beforeAll, expect, it } from 'vitest'
// @ts-expect-error a plain ES module of the test support, without types
import { startHttpWeatherServer } from '../support/mcp/weather-server.mjs'
import { agentEnv, agentProject, cli, laneRuns, readCassette, startAgentProvider, TASK } from './support.js'

let provider: FakeProvider
const project = agentProject('command')
const dir = project.dir

beforeAll(async () => {
  provider = await startAgentProvider()
})
afterAll(async () => {
  await provider.close()
  rmSync(dir, { recursive: true, force: true })
})

/** The replay's environment: no API key (replay provides placeholders), the provider's URLs. */
function replayEnv(extra: Record<string, string> = {}): Record<string, string> {
  const { OPENAI_API_KEY: _o, ANTHROPIC_API_KEY: _a, ...env } = agentEnv(provider, extra)
  return env
}

async function replayWithoutNetwork(args: readonly string[], env = replayEnv()) {
  const before = provider.connections
  const run = await cli(['replay', ...args], dir, env)
  return { ...run, connections: provider.connections - before }
}

it('records the 12-step streaming tool loop of a CLI agent run with node, and replays it with no connection', async () => {
  const recorded = await cli(
    ['record', 'issue-412.jsonl', '--', 'node', 'agent.mjs', '--task', TASK],
    dir,
    agentEnv(provider),
  )
  expect(recorded.stderr).toContain('Recorded 12 decisions of node agent.mjs --task')
  expect(recorded.code).toBe(0)
  expect(recorded.output).toBe('answer: Refund charge 7 (49 EUR), the duplicate.\n')
  const cassette = readCassette(join(dir, 'issue-412.jsonl'))
  expect(cassette.header.source).toEqual({
    kind: 'command',
    argv: ['node', 'agent.mjs', '--task', TASK],
    cwd: '.',
    exitCode: 0,
    modelEndpoints: [provider.url],
  })
  expect(cassette.decisions.map((d) => [d.kind, d.step, d.lane])).toEqual(
    Array.from({ length: 12 }, (_, i) => ['llm', i + 1, undefined]),
  )
  const shown = await cli(['show', 'issue-412.jsonl'], dir, {})
  expect(shown.output).toContain(`  command    node agent.mjs --task '${TASK}'  (in ., exit code 0)\n`)

  const replayed = await replayWithoutNetwork(['issue-412.jsonl'])
  expect(replayed.stderr).toBe(
    'Replayed issue-412.jsonl cleanly: 12 of 12 decisions from 1 process, no network; the command exited with code 0.\n',
  )
  expect(replayed).toMatchObject({ code: 0, connections: 0, output: recorded.output })
})

it('fails the replay of an edited prompt with the miss report, its diff and the view line (from the environment, and in the source)', async () => {
  await cli(['record', 'prompt.jsonl', '--', 'node', 'agent.mjs', '--task', TASK], dir, agentEnv(provider))
  const fromEnv = await replayWithoutNetwork(
    ['prompt.jsonl'],
    replayEnv({ AGENT_SYSTEM_PROMPT: 'You are a billing support agent. Refund at once.' }),
  )
  expect(fromEnv.code).toBe(3)
  expect(fromEnv.connections).toBe(0)
  expect(fromEnv.stderr).toContain('[agent-tape] Replay miss at step 1, model request (gpt-4o-mini)')
  expect(fromEnv.stderr).toContain(
    '    body.messages[0].content: "…billing support agent. Look up every charge of the invoice before you decide, then answer in one sentence." → "…billing support agent. Refund at once."',
  )
  expect(fromEnv.stderr).toMatch(
    /\n {2}view {6}npx --no-install agent-tape view prompt\.jsonl --run \S*runs\/prompt\.jsonl\n/,
  )
  expect(fromEnv.stderr).toContain(
    'Besides, 12 of 12 recorded decisions were left unused.\n\nReplay of prompt.jsonl diverged (0 of 12 recorded decisions replayed); the command exited with code 1.\n',
  )

  const prompt = join(dir, 'prompt.mjs')
  const original = readFileSync(prompt, 'utf8')
  writeFileSync(prompt, original.replace('in one sentence', 'in two sentences'))
  try {
    const fromSource = await replayWithoutNetwork(['prompt.jsonl'])
    expect(fromSource.code).toBe(3)
    expect(fromSource.connections).toBe(0)
    expect(fromSource.stderr).toContain(
      'body.messages[0].content: "…decide, then answer in one sentence." → "…decide, then answer in two sentences."',
    )
    // The run it kept opens next to its recording.
    const view = await cli(
      ['view', 'prompt.jsonl', '--run', runPathIn(fromSource.stderr), '-o', 'view.html'],
      dir,
      {},
    )
    expect(view.code).toBe(0)
  } finally {
    writeFileSync(prompt, original)
  }
})

function runPathIn(report: string): string {
  return /--run (\S+)/.exec(report)![1]!
}

it.each(['anthropic', 'ai'])('records and replays the same loop on the %s SDK', async (sdk) => {
  const file = `${sdk}.jsonl`
  const recorded = await cli(
    ['record', file, '--', 'node', 'agent.mjs', '--sdk', sdk, '--task', TASK],
    dir,
    agentEnv(provider),
  )
  expect(recorded.code).toBe(0)
  expect(recorded.output).toBe('answer: Refund charge 7 (49 EUR), the duplicate.\n')
  expect(readCassette(join(dir, file)).decisions.filter((d) => d.kind === 'llm')).toHaveLength(12)
  const replayed = await replayWithoutNetwork([file])
  expect(replayed).toMatchObject({ code: 0, connections: 0, output: recorded.output })
})

it('records the agent run by tsx from its TypeScript source in the main lane (tsx hands its lane to the process it starts)', async () => {
  const recorded = await cli(
    ['record', 'tsx.jsonl', '--', 'node_modules/.bin/tsx', 'agent.ts', '--task', TASK],
    dir,
    agentEnv(provider),
  )
  expect(recorded.code, recorded.stderr + recorded.output).toBe(0)
  expect(laneRuns(join(dir, 'tsx.jsonl'))).toEqual([''])
  const replayed = await replayWithoutNetwork(['tsx.jsonl'])
  expect(replayed).toMatchObject({ code: 0, connections: 0, output: recorded.output })
})

it('records `npm run` of the agent in the main lane too (npm, then the shell, hand it on)', async () => {
  const recorded = await cli(
    ['record', 'npm.jsonl', '--', 'npm', 'run', '--silent', 'agent'],
    dir,
    agentEnv(provider),
  )
  expect(recorded.code).toBe(0)
  expect(laneRuns(join(dir, 'npm.jsonl'))).toEqual([''])
  const replayed = await replayWithoutNetwork(['npm.jsonl'])
  expect(replayed).toMatchObject({ code: 0, connections: 0, output: recorded.output })
})

it('gives a parent and the two workers it starts at once a lane each, in the order it started them, on every replay', async () => {
  const recorded = await cli(
    ['record', 'workers.jsonl', '--', 'node', 'workers.mjs'],
    dir,
    agentEnv(provider),
  )
  expect(recorded.code).toBe(0)
  const file = join(dir, 'workers.jsonl')
  expect(laneRuns(file)).toEqual(['', '1', '2'])
  const decisions = readCassette(file).decisions
  expect(decisions.filter((d) => d.lane === undefined)).toHaveLength(2)
  expect(decisions.filter((d) => d.lane === '1').map((d) => d.step)).toEqual(
    Array.from({ length: 12 }, (_, i) => i + 1),
  )
  // The first worker's task is the charges, the second's the refunds, whichever starts first.
  expect(JSON.stringify(decisions.find((d) => d.lane === '1')!.in)).toContain('check the charges of INV-412')
  expect(JSON.stringify(decisions.find((d) => d.lane === '2')!.in)).toContain('check the refunds of INV-412')
  for (let i = 0; i < 3; i++) {
    const replayed = await replayWithoutNetwork(['workers.jsonl'])
    expect(replayed.stderr).toContain('cleanly: 26 of 26 decisions from 3 processes')
    expect(replayed).toMatchObject({ code: 0, connections: 0, output: recorded.output })
  }
})

it("counts a sub-agent's miss in its own lane, as the replay's summary counts each lane and the total", async () => {
  const recorded = await cli(
    ['record', 'sub-agent.jsonl', '--', 'node', 'sub-agent.mjs'],
    dir,
    agentEnv(provider),
  )
  expect(recorded.code).toBe(0)
  expect(laneRuns(join(dir, 'sub-agent.jsonl'))).toEqual(['', '1'])
  // The sub-agent's first tool now answers otherwise: its second model request misses.
  const tools = join(dir, 'tools.mjs')
  const original = readFileSync(tools, 'utf8')
  writeFileSync(
    tools,
    original.replace("n === 7 ? 49 : 12, currency: 'EUR'", "n === 7 ? 49 : 13, currency: 'EUR'"),
  )
  try {
    const replayed = await replayWithoutNetwork(['sub-agent.jsonl'])
    expect(replayed).toMatchObject({ code: 3, connections: 0 })
    expect(replayed.stderr).toContain(
      '[agent-tape] Replay miss at step 2 of lane "1", model request (gpt-4o-mini)',
    )
    expect(replayed.stderr).toContain(
      '\n  progress  diverged at decision 2 of 12 in lane "1" (1 replayed before it in that lane); the cassette holds 14 decisions in 2 lanes\n',
    )
    expect(replayed.stderr).toContain(
      'Replay of sub-agent.jsonl diverged (2 of 14 recorded decisions replayed: 1 of 2 in the main lane, 1 of 12 in lane "1"); the command exited with code 1.\n',
    )
  } finally {
    writeFileSync(tools, original)
  }
})

it('replays from a test through replayCommand, resolving to the exit code, the signal, clean and the report', async () => {
  await cli(['record', 'api.jsonl', '--', 'node', 'agent.mjs', '--task', TASK], dir, agentEnv(provider))
  let output = ''
  const result = await replayCommand('api.jsonl', {
    cwd: dir,
    env: replayEnv(),
    stdio: 'pipe',
    onOutput: (_stream, text) => {
      output += text
    },
  })
  expect(result).toEqual({
    exitCode: 0,
    signal: null,
    clean: true,
    report:
      'Replayed api.jsonl cleanly: 12 of 12 decisions from 1 process, no network; the command exited with code 0.',
    status: 0,
  })
  expect(output).toBe('answer: Refund charge 7 (49 EUR), the duplicate.\n')
  const other = await replayCommand('api.jsonl', {
    cwd: dir,
    env: replayEnv(),
    stdio: 'ignore',
    argv: ['node', 'agent.mjs', '--task', 'Another task'],
  })
  // The agent fails on the miss (the SDK throws the 400 it was answered), and the replay says why.
  expect(other).toMatchObject({ exitCode: 1, clean: false, status: 3 })
  expect(other.report).toContain('Input changed (recorded → now):')
})

it('keeps credentials on the command line out of the cassette', async () => {
  const key = 'sk-proj-Ab3dEf6hIj9kLm2nOp5qRs8tUv1wXy4zAb7cDe0fGh3iJk6lMn9o'
  await cli(
    [
      'record',
      'secret.jsonl',
      '--',
      'node',
      'agent.mjs',
      '--task',
      TASK,
      `--api-key=${key}`,
      '--token',
      'abc123',
      'https://user:hunter2@example.org/x?api_key=Zx8Yw2Vq7Lm4',
    ],
    dir,
    agentEnv(provider),
  ).catch(() => undefined)
  const text = readFileSync(join(dir, 'secret.jsonl'), 'utf8')
  for (const secret of [key, 'abc123', 'hunter2', 'Zx8Yw2Vq7Lm4']) expect(text).not.toContain(secret)
  expect(readCassette(join(dir, 'secret.jsonl')).header.source).toMatchObject({
    argv: [
      'node',
      'agent.mjs',
      '--task',
      TASK,
      '--api-key=[REDACTED:$AGENT_TAPE_ARG_4]',
      '--token',
      '[REDACTED:$AGENT_TAPE_ARG_6]',
      'https://user:[REDACTED:$AGENT_TAPE_ARG_7]',
    ],
  })
})

it('records the variables named with --env as hashes, fails a replay where one changed, and replays with --mode live-tools', async () => {
  const recorded = await cli(
    ['record', '--env', 'AGENT_REGION', 'env.jsonl', '--', 'node', 'agent.mjs', '--task', TASK],
    dir,
    agentEnv(provider, { AGENT_REGION: 'eu-west' }),
  )
  expect(recorded.code).toBe(0)
  const cassette = readCassette(join(dir, 'env.jsonl'))
  expect(Object.keys(cassette.header.env ?? {})).toEqual(['AGENT_REGION'])
  expect(readFileSync(join(dir, 'env.jsonl'), 'utf8')).not.toContain('eu-west')
  expect(cassette.decisions[0]).toMatchObject({ kind: 'env', step: 0, in: { keys: ['AGENT_REGION'] } })
  const drifted = await replayWithoutNetwork(['env.jsonl'], replayEnv({ AGENT_REGION: 'us-east' }))
  expect(drifted.code).toBe(3)
  expect(drifted.stderr).toContain('[agent-tape] Environment drift at step 0')
  expect(drifted.stderr).toMatch(/AGENT_REGION +changed \(recorded sha256:/)
  const live = await replayWithoutNetwork(
    ['--mode', 'live-tools', 'env.jsonl'],
    replayEnv({ AGENT_REGION: 'eu-west' }),
  )
  expect(live).toMatchObject({ code: 0, connections: 0 })
})

it('says that a worker thread is not reached, recording and replaying', async () => {
  const recorded = await cli(
    ['record', 'thread.jsonl', '--', 'node', 'worker-thread.mjs', '--task', TASK],
    dir,
    agentEnv(provider),
  )
  expect(recorded.code).toBe(0)
  expect(recorded.stderr).toContain(
    "[agent-tape] A worker thread (code given as a string) was started by worker-thread.mjs: agent-tape reaches each Node process's main thread, not its worker threads",
  )
  const replayed = await replayWithoutNetwork(['thread.jsonl'])
  expect(replayed).toMatchObject({ code: 0, connections: 0 })
  expect(replayed.stderr).toContain('[agent-tape] A worker thread (code given as a string) was started by')
})

it('records the MCP calls of a command over streamable HTTP, replays them without the server, and runs them live with --mode live-tools', async () => {
  const server = await startHttpWeatherServer({ tempC: 18 })
  try {
    const env = agentEnv(provider, { MCP_URL: server.url.href })
    const recorded = await cli(['record', 'mcp.jsonl', '--', 'node', 'mcp-agent.mjs'], dir, env)
    expect(recorded.code).toBe(0)
    const kinds = readCassette(join(dir, 'mcp.jsonl')).decisions.map((d) => d.kind)
    expect(kinds.filter((k) => k === 'llm')).toHaveLength(1)
    expect(kinds.length).toBeGreaterThan(2)
    const before = server.connections
    const replayed = await replayWithoutNetwork(['mcp.jsonl'], replayEnv({ MCP_URL: server.url.href }))
    expect(replayed).toMatchObject({ code: 0, connections: 0, output: recorded.output })
    expect(server.connections).toBe(before)
    // The tool's world moved: live-tools runs the MCP call and reports the drift.
    server.options.tempC = 25
    const live = await replayWithoutNetwork(
      ['--mode', 'live-tools', 'mcp.jsonl'],
      replayEnv({ MCP_URL: server.url.href }),
    )
    expect(live.code).toBe(3)
    expect(live.connections).toBe(0)
    expect(server.connections).toBeGreaterThan(before)
    expect(live.stderr).toContain('tempC')
  } finally {
    await server.close()
  }
})
