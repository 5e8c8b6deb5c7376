import { spawn, spawnSync } from 'node:child_process'
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { type FakeProvider, startFakeProvider } from '@agent-tape/fake-provider'
import { PROXY_VARIABLES } from '@agent-tape/http/process'
import { afterAll, beforeAll, expect, it } from 'vitest'
import { BIN } from '../cli/support/bin.js'
import { agentEnv, agentProject, cli, readCassette, startAgentProvider, TASK } from './support.js'

let provider: FakeProvider
let slow: FakeProvider
const project = agentProject('command-bad')
const dir = project.dir
const AGENT = ['node', 'agent.mjs', '--task', TASK]

beforeAll(async () => {
  provider = await startAgentProvider()
  // From the fourth model request on, this one streams slowly: a signal arrives mid-stream.
  slow = await startAgentProvider(3)
})
afterAll(async () => {
  await provider.close()
  await slow.close()
  rmSync(dir, { recursive: true, force: true })
})

const tempFiles = () => readdirSync(dir).filter((name) => name.includes('tmp'))

it('reports a command that is not found with the status a shell gives it, and writes nothing', async () => {
  const run = await cli(
    ['record', 'nf.jsonl', '--', 'no-such-agent-command', '--task', 'x'],
    dir,
    agentEnv(provider),
  )
  expect(run.code).toBe(127)
  expect(run.stderr).toBe(
    `[agent-tape] Cannot run "no-such-agent-command": no such command in ${dir} or on the PATH. Check the command after --, e.g. agent-tape record run.jsonl -- node dist/agent.js; nothing was recorded.\n`,
  )
  expect(existsSync(join(dir, 'nf.jsonl'))).toBe(false)
  // The built bin ends too (nothing it started is left listening).
  const bin = spawnSync(process.execPath, [BIN, 'record', 'nf.jsonl', '--', 'no-such-agent-command'], {
    cwd: dir,
    env: agentEnv(provider),
    encoding: 'utf8',
    timeout: 20_000,
  })
  expect([bin.status, bin.signal]).toEqual([127, null])
  const replay = await cli(['replay', 'nf.jsonl'], dir, agentEnv(provider))
  expect(replay.code).toBe(2)
  expect(replay.stderr).toContain('[agent-tape] Cannot replay nf.jsonl: the file does not exist.')
})

it('writes nothing for a command that exits before any request, and says so with its exit code', async () => {
  for (const [exit, status] of [
    ['0', 1],
    ['3', 3],
  ] as const) {
    const run = await cli(['record', 'quiet.jsonl', '--', 'node', 'quiet.mjs', exit], dir, agentEnv(provider))
    expect(run.code).toBe(status)
    expect(run.stderr).toBe(
      `[agent-tape] Recorded nothing: node quiet.mjs ${exit} (exit code ${exit}) made no decision: 1 process ran with agent-tape and none made a model request, an MCP call, another HTTP request or an environment read it records (loopback requests to hosts that are not model endpoints pass through: name a local model server with --model-endpoint, a local API with --tape-host). Check that the command reaches the model; no cassette was written.\n`,
    )
    expect(existsSync(join(dir, 'quiet.jsonl'))).toBe(false)
  }
  // A program outside Node that reaches neither the boundary nor the gateway is told apart.
  const shell = await cli(['record', 'quiet.jsonl', '--', 'sh', '-c', 'exit 0'], dir, agentEnv(provider))
  expect(shell.stderr).toContain(
    'no Node process of it started with agent-tape, and no request reached the gateway of its processes outside Node',
  )
  // One that unsets the gateway's variables and goes to the network itself is not seen, and said so.
  const variables = [...PROXY_VARIABLES, 'OPENAI_BASE_URL']
  const unset = `env ${variables.map((name) => `-u ${name}`).join(' ')} curl -s -o /dev/null http://127.0.0.1:9/v1`
  const unseen = await cli(['record', 'quiet.jsonl', '--', 'sh', '-c', unset], dir, agentEnv(provider))
  expect(unseen.stderr).toContain('one that ignores or unsets them is not)')
  expect(existsSync(join(dir, 'quiet.jsonl'))).toBe(false)
})

it('creates a missing folder when it writes the cassette, and none when nothing is written', async () => {
  const missing = await cli(['record', 'runs/deep/run.jsonl', '--', ...AGENT], dir, agentEnv(provider))
  expect(missing.code).toBe(0)
  expect(missing.stderr).toContain('Recorded 12 decisions of node agent.mjs')
  expect(readCassette(join(dir, 'runs/deep/run.jsonl')).decisions).toHaveLength(12)
  const replay = await cli(['replay', 'runs/deep/run.jsonl'], dir, agentEnv(provider))
  expect(replay.code).toBe(0)
  // A command that records nothing leaves no empty folder behind.
  const quiet = await cli(
    ['record', 'empty/run.jsonl', '--', 'node', 'quiet.mjs', '0'],
    dir,
    agentEnv(provider),
  )
  expect(quiet.code).toBe(1)
  expect(quiet.stderr).toContain('Recorded nothing')
  expect(existsSync(join(dir, 'empty'))).toBe(false)
})

it('refuses a cassette under a file, or a folder, before running the command', async () => {
  const before = provider.requests.length
  writeFileSync(join(dir, 'notes.txt'), 'not a folder\n')
  for (const path of ['notes.txt/run.jsonl', 'notes.txt/deeper/run.jsonl']) {
    const underFile = await cli(['record', path, '--', ...AGENT], dir, agentEnv(provider))
    expect(underFile.code).toBe(2)
    expect(underFile.stderr).toBe(
      `[agent-tape] Cannot record to ${path}: notes.txt is a file, not a folder, so no cassette can be written under it. Choose a path in a folder (e.g. runs/run.jsonl), or move notes.txt out of the way; the command was not run.\n`,
    )
  }
  mkdirSync(join(dir, 'folder.jsonl'))
  const folder = await cli(['record', 'folder.jsonl', '--', ...AGENT], dir, agentEnv(provider))
  expect(folder.code).toBe(2)
  expect(folder.stderr).toContain('[agent-tape] Cannot record to folder.jsonl: it is a folder.')
  expect(provider.requests.length).toBe(before)
})

it('refuses to replace an existing cassette without --force, and re-records it with --force', async () => {
  const file = join(dir, 'existing.jsonl')
  expect((await cli(['record', 'existing.jsonl', '--', ...AGENT], dir, agentEnv(provider))).code).toBe(0)
  const text = readFileSync(file, 'utf8')
  const before = provider.requests.length
  const refused = await cli(['record', 'existing.jsonl', '--', ...AGENT], dir, agentEnv(provider))
  expect(refused.code).toBe(2)
  expect(refused.stderr).toMatch(
    /^\[agent-tape\] Refusing to replace existing\.jsonl: it exists already \(a cassette of 12 decisions recorded at \S+\)\. Pass --force to record the command again over it/,
  )
  expect(provider.requests.length).toBe(before)
  expect(readFileSync(file, 'utf8')).toBe(text)
  const forced = await cli(['record', '--force', 'existing.jsonl', '--', ...AGENT], dir, agentEnv(provider))
  expect(forced.code).toBe(0)
  expect(readCassette(file).header.recordedAt).not.toBe(JSON.parse(text.split('\n')[0]!).recordedAt)
  // A cassette whose recorded folder is not in this project is refused before anything runs.
  writeFileSync(join(dir, 'moved.jsonl'), text.replace('"cwd":"."', '"cwd":"packages/gone"'))
  const moved = await cli(['replay', 'moved.jsonl'], dir, agentEnv(provider))
  expect(moved.code).toBe(2)
  expect(moved.stderr).toContain(
    `[agent-tape] Cannot replay moved.jsonl: the command ran in packages/gone under the project root, and ${join(dir, 'packages/gone')} is not a folder here.`,
  )
})

it('refuses to record when CI is set, unless allowed', async () => {
  const refused = await cli(['record', 'ci.jsonl', '--', ...AGENT], dir, agentEnv(provider, { CI: 'true' }))
  expect(refused.code).toBe(2)
  expect(refused.stderr).toBe(
    '[agent-tape] Refusing to record a command in CI: CI is set, and CI runs must only replay (a recording reaches the real model and spends tokens). Record locally and commit the cassette, or pass --allow-ci (or set AGENT_TAPE_ALLOW_CI_RECORDING=1) in a job that is meant to record; the command was not run.\n',
  )
  expect(existsSync(join(dir, 'ci.jsonl'))).toBe(false)
  const allowed = await cli(
    ['record', '--allow-ci', 'ci.jsonl', '--', ...AGENT],
    dir,
    agentEnv(provider, { CI: 'true' }),
  )
  expect(allowed.code).toBe(0)
  // Replay is what CI does.
  expect((await cli(['replay', 'ci.jsonl'], dir, agentEnv(provider, { CI: 'true' }))).code).toBe(0)
})

it('rejects a command line without --, and a replay mode it does not know', async () => {
  const noDash = await cli(['record', 'x.jsonl', 'node', 'agent.mjs'], dir, agentEnv(provider))
  expect(noDash.code).toBe(2)
  expect(noDash.stderr).toContain(
    'unexpected arguments "node", "agent.mjs" before -- (expected <cassette> -- <command> [args…])',
  )
  const nothing = await cli(['record', 'x.jsonl', '--'], dir, agentEnv(provider))
  expect(nothing.stderr).toContain('no command to record')
  const mode = await cli(['replay', '--mode', 'live', 'x.jsonl'], dir, agentEnv(provider))
  expect(mode.code).toBe(2)
  expect(mode.stderr).toContain('unknown mode "live"; the modes are replay and live-tools')
})

/** Runs the built bin, sends `signal` once the fourth model request is in flight, and waits for it to end. */
async function interrupt(file: string, signal: NodeJS.Signals) {
  const start = slow.requests.length
  const child = spawn(process.execPath, [BIN, 'record', file, '--', ...AGENT], {
    cwd: dir,
    env: agentEnv(slow),
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  let stderr = ''
  child.stderr.setEncoding('utf8').on('data', (text) => (stderr += text))
  const ended = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)))
  while (slow.requests.length < start + 4) await new Promise((r) => setTimeout(r, 20))
  child.kill(signal)
  return { code: await ended, stderr }
}

it.each([
  ['SIGINT', 130],
  ['SIGTERM', 143],
] as const)(
  'passes %s on to the command and writes the decisions complete by then, at once',
  async (signal, status) => {
    const run = await interrupt(`${signal}.jsonl`, signal)
    expect(run.code).toBe(status)
    expect(run.stderr).toContain(
      `Recorded 3 decisions of node agent.mjs --task '${TASK}' (ended by ${signal}, after ${signal} was passed on to it) in ${signal}.jsonl: the decisions complete when it was interrupted; 1 decision still in flight left out.`,
    )
    const cassette = readCassette(join(dir, `${signal}.jsonl`))
    expect(cassette.decisions.map((d) => d.step)).toEqual([1, 2, 3])
    expect(cassette.header.source).toMatchObject({ exitCode: null, signal })
    expect(tempFiles()).toEqual([])
    // Its replay runs to where the recording stopped and misses there.
    const replay = await cli(['replay', `${signal}.jsonl`], dir, agentEnv(slow))
    expect(replay.code).toBe(3)
    expect(replay.stderr).toContain('[agent-tape] Replay miss at step 4')
  },
)

it('reports the HTTPS tunnel of a program outside Node: named while recording, refused and failing the replay', async () => {
  const script = `curl -s -o /dev/null -w '%{http_code}\\n' https://api.example.invalid/v1/data; node agent.mjs --task "${TASK}"`
  const recorded = await cli(['record', 'curl.jsonl', '--', 'sh', '-c', script], dir, agentEnv(provider))
  expect(recorded.code).toBe(0)
  expect(recorded.stderr).toContain(
    "Not recorded: requests that reached the gateway of the command's processes outside Node, and that it could not tape: CONNECT api.example.invalid:443 (an HTTPS tunnel through the proxy: its bytes are encrypted end to end, so it passed unrecorded (--intercept-https records it)).",
  )
  // The Node agent under the same shell is not sent to the proxy: its requests are taped.
  expect(readCassette(join(dir, 'curl.jsonl')).decisions).toHaveLength(12)
  const before = provider.connections
  const replayed = await cli(['replay', 'curl.jsonl'], dir, agentEnv(provider))
  expect(replayed.code).toBe(3)
  // curl's CONNECT was refused: no answer (000).
  expect(replayed.output).toBe('000\nanswer: Refund charge 7 (49 EUR), the duplicate.\n')
  expect(replayed.stderr).toContain(
    "[agent-tape] Cannot replay a request of the command: CONNECT api.example.invalid:443 (an HTTPS tunnel through the proxy, which a replay cannot answer without --intercept-https): it reached the gateway of the command's processes outside Node",
  )
  expect(provider.connections).toBe(before)
})

it('writes nothing when an answer holds a secret, and names where', async () => {
  const leaky = await startFakeProvider({
    reply: () => ({
      text: 'Use the key sk-proj-Ab3dEf6hIj9kLm2nOp5qRs8tUv1wXy4zAb7cDe0fGh3iJk6lMn9o to refund.',
    }),
  })
  try {
    const run = await cli(['record', 'leak.jsonl', '--', ...AGENT], dir, agentEnv(leaky))
    expect(run.code).toBe(1)
    expect(run.stderr).toMatch(
      /^\[agent-tape\] Refusing to write cassette leak\.jsonl: decision #1 \(model request \(gpt-4o-mini\), step 1\) out\S* contains /,
    )
    expect(run.stderr).toContain('Nothing was written')
    expect(existsSync(join(dir, 'leak.jsonl'))).toBe(false)
    expect(tempFiles()).toEqual([])
  } finally {
    await leaky.close()
  }
})
