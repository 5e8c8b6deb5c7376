import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { createServer, type Server } from 'node:net'
import { join } from 'node:path'
import { type FakeProvider, startFakeProvider, type Turn } from '@agent-tape/fake-provider'
import { afterAll, beforeAll, expect, it } from 'vitest'
import { FixtureProject, REPO_ROOT } from '../support/fixture-project.js'
import { findPython } from '../support/python.js'
import { toolResultsIn } from '../support/scripts.js'
import { cli, laneRuns, readCassette } from './support.js'

/**
 * A Python agent (stdlib urllib, httpx, requests) recorded and replayed by `agent-tape record` and
 * `replay` through the gateway: what its model SDK's base URL or the proxy variables send is
 * decided by the same boundary as a Node process's requests, into the same cassette format.
 */
const PYTHON_AGENT = join(REPO_ROOT, 'test/command/fixtures/python-agent')
const TASK = 'Which charge is the duplicate?'
const KEY = 'sk-proj-PyAgentKey0123456789abcdefghijklmnopqrstuvwxyzAB'

let python: string
let provider: FakeProvider
const project = new FixtureProject('python-agent', [PYTHON_AGENT])
const dir = project.dir

/** Five lookups, one at a time, then the answer: a 6-step streamed tool loop (a plain answer without tools). */
function script(request: { body: Record<string, unknown> }): Turn {
  if (!request.body.tools) return { text: `noted: ${JSON.stringify(request.body.messages).length} bytes` }
  const seen = toolResultsIn(request.body)
  if (seen < 5) return { toolCalls: [{ name: 'lookup_charge', args: { n: seen + 1 } }] }
  return {
    text: ['Charge 4 ', 'is the duplicate ', 'of charge 2.'],
    usage: { inputTokens: 400, outputTokens: 8 },
  }
}

beforeAll(async () => {
  python = findPython(['httpx', 'requests'])
  provider = await startFakeProvider({ reply: script, seed: 'python-agent' })
})
afterAll(async () => {
  await provider.close()
  rmSync(dir, { recursive: true, force: true })
})

/** A user's shell for the agent: the providers' base URLs and keys, nothing from CI. */
function env(extra: Record<string, string> = {}): Record<string, string> {
  return {
    PATH: process.env.PATH ?? '',
    HOME: process.env.HOME ?? '/tmp',
    OPENAI_BASE_URL: provider.openaiBaseURL,
    ANTHROPIC_BASE_URL: provider.anthropicBaseURL,
    OPENAI_API_KEY: KEY,
    ANTHROPIC_API_KEY: KEY,
    ...extra,
  }
}

/** The replay's environment: no key at all. */
function replayEnv(extra: Record<string, string> = {}): Record<string, string> {
  const { OPENAI_API_KEY: _o, ANTHROPIC_API_KEY: _a, ...rest } = env(extra)
  return rest
}

function agent(...args: string[]): string[] {
  return [python, 'agent.py', '--task', TASK, ...args]
}

async function replay(args: readonly string[], environment = replayEnv()) {
  const before = provider.connections
  const run = await cli(['replay', ...args], dir, environment)
  return { ...run, connections: provider.connections - before }
}

const ANSWER = 'answer: Charge 4 is the duplicate of charge 2.\n'

it.each([
  ['urllib', 'openai'],
  ['httpx', 'openai'],
  ['requests', 'anthropic'],
  ['urllib', 'anthropic'],
])(
  'records a 6-step streamed tool loop of a Python agent on %s (%s format) through its base URL, and replays it with no key and no connection',
  async (client, format) => {
    const file = `${client}-${format}.jsonl`
    const recorded = await cli(
      ['record', file, '--', ...agent('--client', client, '--format', format)],
      dir,
      env(),
    )
    expect(recorded.stderr).toContain(
      `Recorded 6 decisions of ${python} agent.py --task '${TASK}' --client ${client} --format ${format}`,
    )
    expect(recorded.stderr).toContain('  main lane  python3 agent.py  6 decisions')
    expect(recorded.code).toBe(0)
    expect(recorded.output).toBe(ANSWER)
    const cassette = readCassette(join(dir, file))
    expect(cassette.decisions.map((d) => [d.kind, d.step, d.lane])).toEqual(
      Array.from({ length: 6 }, (_, i) => ['llm', i + 1, undefined]),
    )
    expect(cassette.decisions[0]!.in).toMatchObject({
      api: format === 'openai' ? 'openai-chat' : 'anthropic-messages',
      path: format === 'openai' ? '/v1/chat/completions' : '/v1/messages',
    })
    // Streamed as sent, and the key of the Authorization (or x-api-key) header never stored.
    expect(JSON.stringify(cassette.decisions[5]!.out)).toContain('"sse"')
    expect(readFileSync(join(dir, file), 'utf8')).not.toContain(KEY)
    expect(cassette.header.source).toMatchObject({
      kind: 'command',
      upstreams: { openai: provider.openaiBaseURL, anthropic: provider.anthropicBaseURL },
    })

    const replayed = await replay([file])
    expect(replayed.stderr).toBe(
      `Replayed ${file} cleanly: 6 of 6 decisions from 1 process, no network; the command exited with code 0.\n`,
    )
    expect(replayed).toMatchObject({ code: 0, connections: 0, output: ANSWER })
  },
)

it('records through the proxy variables a Python agent given its provider URL directly, named with --model-endpoint', async () => {
  const args = agent('--client', 'httpx', '--base-url', provider.openaiBaseURL)
  const recorded = await cli(
    ['record', '--model-endpoint', provider.url, 'direct.jsonl', '--', ...args],
    dir,
    env({ OPENAI_BASE_URL: 'https://unused.example.invalid/v1' }),
  )
  expect(recorded.code).toBe(0)
  expect(recorded.output).toBe(ANSWER)
  const cassette = readCassette(join(dir, 'direct.jsonl'))
  expect(cassette.decisions.map((d) => d.kind)).toEqual(Array(6).fill('llm'))
  expect(cassette.header.source).toMatchObject({ modelEndpoints: [provider.url] })
  const replayed = await replay(
    ['direct.jsonl'],
    replayEnv({ OPENAI_BASE_URL: 'https://unused.example.invalid/v1' }),
  )
  expect(replayed).toMatchObject({ code: 0, connections: 0, output: ANSWER })
})

it.each([
  ['openai', 'body.messages[1].content', 'gpt-4o-mini'],
  ['anthropic', 'body.messages[0].content', 'claude-sonnet-4-5'],
])(
  "fails the replay of a one-word prompt edit (%s format) with the miss, its diff and exit code 3, and the agent gets the provider's error",
  async (format, path, model) => {
    const file = `edit-${format}.jsonl`
    await cli(['record', file, '--', ...agent('--format', format)], dir, env())
    const edited = await replay([
      file,
      '--',
      python,
      'agent.py',
      '--task',
      'Which charge is the refund?',
      '--format',
      format,
    ])
    expect(edited.code).toBe(3)
    expect(edited.connections).toBe(0)
    expect(edited.stderr).toContain(`[agent-tape] Replay miss at step 1, model request (${model})`)
    expect(edited.stderr).toContain(
      `${path}: "Which charge is the duplicate?" → "Which charge is the refund?"`,
    )
    expect(edited.stderr).toContain(`Replay of ${file} diverged (0 of 6 recorded decisions replayed)`)
    // The agent was answered with the provider's error and printed no answer.
    expect(edited.output).toBe('')
  },
)

it('replays 3 concurrent requests of one Python process (an asyncio gather) in the same lane, three times over', async () => {
  const recorded = await cli(['record', 'gather.jsonl', '--', ...agent('--parallel', '3')], dir, env())
  expect(recorded.code).toBe(0)
  const cassette = readCassette(join(dir, 'gather.jsonl'))
  expect(cassette.decisions).toHaveLength(3)
  expect(laneRuns(join(dir, 'gather.jsonl'))).toEqual([''])
  for (let run = 0; run < 3; run++) {
    const replayed = await replay(['gather.jsonl'])
    expect(replayed.stderr).toContain('Replayed gather.jsonl cleanly: 3 of 3 decisions')
    expect(replayed).toMatchObject({ code: 0, connections: 0, output: recorded.output })
  }
})

it('gives a Python agent started by a Node process the lane of its place, beside the Node lanes', async () => {
  // The parent asks the model first (so it keeps the main lane), then runs the Python agent.
  const parent = [
    "const { execFileSync } = require('node:child_process');",
    `fetch(process.env.OPENAI_BASE_URL + '/chat/completions', { method: 'POST', headers: { 'content-type': 'application/json', authorization: 'Bearer ' + process.env.OPENAI_API_KEY }, body: JSON.stringify({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'plan' }] }) })`,
    `.then((r) => r.json()).then(() => process.stdout.write(execFileSync(${JSON.stringify(python)}, ['agent.py', '--task', ${JSON.stringify(TASK)}])))`,
  ].join('\n')
  const args = ['record', '--model-endpoint', provider.url, 'nested.jsonl', '--', 'node', '-e', parent]
  const recorded = await cli(args, dir, env())
  expect(recorded.code).toBe(0)
  expect(recorded.output).toBe(ANSWER)
  expect(recorded.stderr).toContain(
    '  main lane  node  1 decision\n  lane 1  python3 agent.py  6 decisions\n',
  )
  expect(laneRuns(join(dir, 'nested.jsonl'))).toEqual(['', '1'])
  const replayed = await replay(['nested.jsonl'])
  expect(replayed.stderr).toContain('Replayed nested.jsonl cleanly: 7 of 7 decisions from 2 processes')
  expect(replayed).toMatchObject({ code: 0, connections: 0, output: ANSWER })
})

it('keeps a key out of the cassette wherever a Python agent sends it, and writes nothing when an answer holds one', async () => {
  const inTask = await cli(
    ['record', 'task-key.jsonl', '--', python, 'agent.py', '--task', `Use ${KEY} to look.`],
    dir,
    env(),
  )
  expect(inTask.code).toBe(0)
  const text = readFileSync(join(dir, 'task-key.jsonl'), 'utf8')
  expect(text).not.toContain(KEY)
  expect(text).toContain('[REDACTED')

  const leaky = await startFakeProvider({
    reply: () => ({
      text: 'Use the key sk-proj-Ab3dEf6hIj9kLm2nOp5qRs8tUv1wXy4zAb7cDe0fGh3iJk6lMn9o to refund.',
    }),
  })
  try {
    const run = await cli(
      ['record', 'leak.jsonl', '--', ...agent()],
      dir,
      env({ OPENAI_BASE_URL: leaky.openaiBaseURL }),
    )
    expect(run.code).toBe(1)
    expect(run.stderr).toMatch(
      /^\[agent-tape\] Refusing to write cassette leak\.jsonl: decision #1 \(model request \(gpt-4o-mini\), step 1\) out\S* contains /,
    )
    expect(existsSync(join(dir, 'leak.jsonl'))).toBe(false)
  } finally {
    await leaky.close()
  }
})

it('refuses a gateway port in use before the command runs, and a port that is no port', async () => {
  const busy: Server = createServer()
  await new Promise<void>((resolve) => busy.listen(0, '127.0.0.1', resolve))
  const port = (busy.address() as { port: number }).port
  try {
    const run = await cli(
      ['record', '--gateway-port', String(port), 'busy.jsonl', '--', ...agent()],
      dir,
      env(),
    )
    expect(run.code).toBe(2)
    expect(run.stderr).toContain(
      `[agent-tape] Cannot start the gateway on 127.0.0.1:${port}: the port is in use by another program`,
    )
    expect(run.stderr).toContain(
      'Choose another port with --gateway-port, or leave it out to take a free one; the command was not run',
    )
    expect(run.output).toBe('')
    expect(existsSync(join(dir, 'busy.jsonl'))).toBe(false)
  } finally {
    busy.close()
  }
  const bad = await cli(['record', '--gateway-port', 'http', 'bad.jsonl', '--', ...agent()], dir, env())
  expect(bad.code).toBe(2)
  expect(bad.stderr).toContain('--gateway-port must be a whole number from 1 to 65535, got "http"')
})

it('names, and never records as empty, requests the gateway cannot take: over the size limit, HTTP/2 with prior knowledge', async () => {
  const big = await cli(['record', '--max-request-bytes', '300', 'big.jsonl', '--', ...agent()], dir, env())
  expect(big.code).toBe(1)
  expect(big.stderr).toContain("(its body is larger than the gateway's limit of 300 bytes)")
  expect(existsSync(join(dir, 'big.jsonl'))).toBe(false)

  // A client that opens the proxy's connection with HTTP/2's preface, before the agent runs.
  writeFileSync(
    join(dir, 'h2.py'),
    [
      'import os, socket, urllib.parse',
      "proxy = urllib.parse.urlsplit(os.environ['HTTP_PROXY'])",
      's = socket.create_connection((proxy.hostname, proxy.port))',
      "s.sendall(b'PRI * HTTP/2.0\\r\\n\\r\\nSM\\r\\n\\r\\n')",
      "print(s.recv(100).split(b'\\r\\n')[0].decode())",
    ].join('\n'),
  )
  const shell = `${python} h2.py && ${python} agent.py --task '${TASK}'`
  const prior = await cli(['record', 'h2.jsonl', '--', 'sh', '-c', shell], dir, env())
  expect(prior.output).toBe(`HTTP/1.1 400 Bad Request\n${ANSWER}`)
  expect(prior.stderr).toContain(
    'an HTTP/2 connection (a client spoke HTTP/2 with prior knowledge; the gateway speaks HTTP/1.1)',
  )
  const replayed = await replay(['h2.jsonl'])
  expect(replayed.code).toBe(3)
  expect(replayed.stderr).toContain('Cannot replay a request of the command: an HTTP/2 connection')

  // A request to the gateway that is no route, with a key in its path and query: named, the key masked.
  writeFileSync(
    join(dir, 'stray.py'),
    [
      'import os, sys, urllib.error, urllib.parse, urllib.request',
      "proxy = urllib.parse.urlsplit(os.environ['HTTP_PROXY'])",
      "url = f'http://{proxy.hostname}:{proxy.port}/stray/' + sys.argv[1] + '?key=' + sys.argv[1]",
      'try:',
      '    urllib.request.build_opener(urllib.request.ProxyHandler({})).open(url)',
      'except urllib.error.HTTPError as error:',
      '    print(error.code)',
    ].join('\n'),
  )
  const stray = await cli(['record', 'stray.jsonl', '--', python, 'stray.py', KEY], dir, env())
  expect(stray.output).toBe('404\n')
  expect(stray.stderr).toContain('(/stray/[REDACTED')
  expect(stray.stderr).not.toContain(KEY)
})

it("promotes a Python agent's run into a Vitest test that replays it with no key and no connection, and views its lanes", async () => {
  const recorded = await cli(
    ['record', 'runs/triage.jsonl', '--', ...agent('--client', 'requests')],
    dir,
    env(),
  )
  expect(recorded.code, recorded.stderr).toBe(0)
  const promoted = await cli(
    [
      'promote',
      'runs/triage.jsonl',
      '--name',
      'triage',
      '--test',
      'test/agent.test.ts',
      '--runner',
      'vitest',
    ],
    dir,
    {},
  )
  expect(promoted.code, promoted.stderr).toBe(0)
  expect(project.read('test/agent.test.ts')).toContain(
    `// Recorded command: ${python} agent.py --task ${TASK}`,
  )
  const before = provider.connections
  const vitest = join(REPO_ROOT, 'node_modules/vitest/vitest.mjs')
  const noKey = { OPENAI_API_KEY: '', ANTHROPIC_API_KEY: '', OPENAI_BASE_URL: '', ANTHROPIC_BASE_URL: '' }
  const run = await project.run(`"${process.execPath}" "${vitest}" run test/agent.test.ts`, noKey)
  expect(run.code, run.output).toBe(0)
  expect(run.output).toMatch(/Tests\s+1 passed \(1\)/)
  expect(provider.connections).toBe(before)

  // The view of a run with a Python process beside a Node one shows both lanes.
  const view = await cli(['view', 'nested.jsonl', '-o', 'nested.html'], dir, {})
  expect(view.code, view.stderr).toBe(0)
  const page = readFileSync(join(dir, 'nested.html'), 'utf8')
  // The Python agent's six decisions in lane 1, the Node parent's one in the main lane.
  expect(page.split('"lane":"1"').length - 1).toBeGreaterThanOrEqual(6)
}, 180_000)
