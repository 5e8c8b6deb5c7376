import { type FakeProvider, startFakeProvider } from '@agent-tape/fake-provider'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type CountingServer, startCountingServer } from '../support/counting-server.js'
import { findPython } from '../support/python.js'
import { startTlsServer } from '../support/tls-server.js'
import { configure, RUNNERS, type RunnerProject, testFile } from './runners.js'
import { count } from './scenarios.js'

// Paths out of the process that no boundary tapes, as a user of either runner meets them: a local
// model nobody declared, a child process, a promise that outlives its test. Each runner's suite
// has its own servers; the runs within a suite count requests, so they run in turn.

const LOCAL_MODEL = [
  "import OpenAI from 'openai'",
  '',
  "it.tape('local model', async () => {",
  "  const client = new OpenAI({ apiKey: 'sk-local', baseURL: process.env.LOCAL_MODEL_URL + '/v1' })",
  "  const answer = await client.chat.completions.create({ model: 'llama3.2', messages: [{ role: 'user', content: 'Hi' }] })",
  "  expect(answer.choices[0]?.message.content).toBe('Hello from a local model.')",
  '})',
]

const CHILD = [
  "import { execFileSync } from 'node:child_process'",
  '',
  "it.tape('child', async () => {",
  // Connects and exits: the server counts the connection once the test process runs again.
  '  const connect = "require(\'node:net\').connect(" + process.env.COUNTING_PORT + ", \'127.0.0.1\', () => process.exit(0))"',
  "  execFileSync(process.execPath, ['-e', connect])",
  '})',
]

// A Node child, a Python child and curl, each asking the model: taped (the default), each in a lane of its own.
const CHILDREN = [
  "import { execFile } from 'node:child_process'",
  "import { promisify } from 'node:util'",
  '',
  "it.tape('children', async () => {",
  "  const question = process.env.QUESTION ?? 'Hi'",
  "  const body = JSON.stringify({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: question }] })",
  // The child's source: the request's body given as a JSON literal.
  "  const ask = \"fetch(process.env.FAKE_PROVIDER_URL + '/v1/chat/completions', { method: 'POST', headers: { 'content-type': 'application/json', authorization: 'Bearer sk-test' }, body: \" + JSON.stringify(body) + \" }).then((r) => r.json()).then((a) => process.stdout.write(a.choices[0].message.content))\"",
  "  const fromNode = (await promisify(execFile)(process.execPath, ['-e', ask])).stdout",
  "  const env = { ...process.env, OPENAI_BASE_URL: process.env.FAKE_PROVIDER_URL + '/v1' }",
  "  const fromPython = (await promisify(execFile)(process.env.PYTHON, ['ask.py', question], { env })).stdout",
  // curl through the proxy variables, plain HTTP, straight to the provider.
  "  const curl = ['-s', '-X', 'POST', process.env.FAKE_PROVIDER_URL + '/v1/chat/completions', '-H', 'content-type: application/json', '-H', 'authorization: Bearer sk-test', '-d', body]",
  "  const fromCurl = JSON.parse((await promisify(execFile)('curl', curl)).stdout).choices[0].message.content",
  "  expect([fromNode, fromPython, fromCurl]).toEqual(['Hello.', 'Hello.', 'Hello.'])",
  '})',
]

const ASK_PY = [
  'import json, os, sys, urllib.request',
  "body = json.dumps({'model': 'gpt-4o-mini', 'messages': [{'role': 'user', 'content': sys.argv[1]}]}).encode()",
  "request = urllib.request.Request(os.environ['OPENAI_BASE_URL'] + '/chat/completions', data=body, headers={'content-type': 'application/json', 'authorization': 'Bearer sk-test'})",
  "sys.stdout.write(json.load(urllib.request.urlopen(request))['choices'][0]['message']['content'])",
  '',
].join('\n')

// curl over HTTPS through the proxy variables, to a model on a loopback TLS server.
const HTTPS_CHILD = [
  "import { execFile } from 'node:child_process'",
  "import { promisify } from 'node:util'",
  '',
  "it.tape('https child', async () => {",
  "  const body = JSON.stringify({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'Hi' }] })",
  "  const curl = ['-sS', '--fail', '-X', 'POST', process.env.FAKE_PROVIDER_URL + '/v1/chat/completions', '-H', 'content-type: application/json', '-H', 'authorization: Bearer sk-test', '-d', body]",
  "  const answer = JSON.parse((await promisify(execFile)('curl', curl)).stdout)",
  "  expect(answer.choices[0].message.content).toBe('Hello over TLS.')",
  '})',
]

const LEAKY = [
  "import OpenAI from 'openai'",
  '',
  "it.tape('leaky', async () => {",
  "  const client = new OpenAI({ apiKey: 'sk-test', baseURL: process.env.FAKE_PROVIDER_URL + '/v1', maxRetries: 0 })",
  // Not awaited: the request waits on a promise the next test settles, so it comes after this
  // test, and its tape, ended, however slowly the machine runs (a timer would race the tape's end).
  '  const ended = new Promise((resolve) => { globalThis.leakyTestEnded = resolve })',
  '  ended.then(() => {',
  "    client.chat.completions.create({ model: 'gpt-4o', messages: [{ role: 'user', content: 'late' }] }).catch(() => {})",
  '  })',
  '})',
  '',
  "it('keeps the file running', async () => {",
  '  globalThis.leakyTestEnded()',
  '  await new Promise((resolve) => setTimeout(resolve, 600))',
  '})',
]

const WORKER = [
  "import { Worker } from 'node:worker_threads'",
  '',
  "it.tape('worker', async () => {",
  '  // The worker swallows the error; the tape fails with it all the same.',
  "  const code = \"const { parentPort, workerData } = require('node:worker_threads'); fetch(workerData).then(() => parentPort.postMessage('answered'), (e) => parentPort.postMessage(e.cause?.code ?? e.message))\"",
  "  const worker = new Worker(code, { eval: true, workerData: process.env.FAKE_PROVIDER_URL + '/v1/models' })",
  "  const outcome = await new Promise((resolve) => worker.once('message', resolve))",
  '  await worker.terminate()',
  "  expect(outcome).toBe('ERR_TAPE_NETWORK')",
  '})',
]

describe.concurrent.each(RUNNERS)('$name', { timeout: 120_000 }, (runner) => {
  let model: FakeProvider
  let local: FakeProvider
  let counting: CountingServer
  const projects: RunnerProject[] = []

  beforeAll(async () => {
    model = await startFakeProvider({ reply: () => ({ text: 'Hello.' }) })
    local = await startFakeProvider({ reply: () => ({ text: 'Hello from a local model.' }) })
    counting = await startCountingServer('counting')
  })
  afterAll(async () => {
    await model.close()
    await local.close()
    await counting.close()
    for (const project of projects) project.dispose()
  })

  const project = (file: string, lines: string[]) => {
    const made = runner.project()
    made.write(`test/${file}`, testFile(runner, lines))
    projects.push(made)
    return made
  }
  const env = (more: Record<string, string> = {}) => ({
    FAKE_PROVIDER_URL: model.url,
    LOCAL_MODEL_URL: local.url,
    COUNTING_PORT: String(counting.port),
    ...more,
  })

  it.sequential('refuses a call to a local model nobody declared, recording and in a CI replay, sending nothing', async () => {
    const paths = project('local.test.ts', LOCAL_MODEL)
    const refused = (action: string) =>
      `Refused a model call to ${local.url}/v1/chat/completions (openai-chat): ${new URL(local.url).host} is not a model endpoint: tape "test/local.test.ts > local model" is ${action}`
    const advice = `Add its base URL to the modelEndpoints option (modelEndpoints: ['${local.url}/v1'])`
    const recording = await paths.runTests('test/local.test.ts', env())
    expect(recording.code).toBe(1)
    expect(recording.output).toContain(refused('recording'))
    expect(recording.output).toContain(advice)
    expect(recording.output).toContain(runner.tests({ failed: 1 }))
    expect(paths.cassettes()).toEqual(['test/__cassettes__/local.test.ts/local model.jsonl'])
    const replay = await paths.runTests('test/local.test.ts', env({ CI: 'true' }))
    expect(replay.code).toBe(1)
    expect(count(replay.output, refused('replaying'))).toBeGreaterThan(0)
    expect(replay.output).toContain(advice)
    expect(replay.output).toContain('  test/local.test.ts > local model  replay  diverged')
    expect(local.requests).toHaveLength(0)
    // Declared as the refusal says (the fixture's config declares FAKE_PROVIDER_URL/v1): recorded, then replayed offline.
    paths.remove('test/__cassettes__/local.test.ts/local model.jsonl')
    const declared = env({ FAKE_PROVIDER_URL: local.url })
    const recorded = await paths.runTests('test/local.test.ts', declared)
    expect(recorded.code, recorded.output).toBe(0)
    expect(local.requests).toHaveLength(1)
    const offline = await paths.runTests('test/local.test.ts', { ...declared, CI: 'true' })
    expect(offline.code, offline.output).toBe(0)
    expect(offline.output).toContain('agent-tape  1 tape: 1 replayed cleanly, 0 recorded, 0 diverged')
    expect(local.requests).toHaveLength(1)
  })

  it.sequential("names a child process in the run summary, and refuses it with childProcesses: 'refuse'", async () => {
    const paths = project('child.test.ts', CHILD)
    const before = counting.connections
    const named = await paths.runTests('test/child.test.ts', env())
    expect(named.code, named.output).toBe(0)
    const command = `node -e "require('node:net').connect(${counting.port}, '127.0.0.1', () => process.exit(0))"`
    expect(named[runner.summaryStream]).toContain(
      [
        "  Child processes (1): started while a tape recorded or replayed; a Node process is taped in the lane named, what any other program sends is not seen (childProcesses: 'refuse' refuses them):",
        `    test/child.test.ts > child: ${command} (lane child-1)`,
      ].join('\n'),
    )
    await waitFor(() => counting.connections === before + 1)
    configure(runner, paths, "childProcesses: 'refuse'")
    const refused = await paths.runTests('test/child.test.ts', env({ CI: 'true' }))
    expect(refused.code).toBe(1)
    expect(refused.output).toContain(
      `[agent-tape] Refused to start a child process (${command}): tape "test/child.test.ts > child" is replaying, and a replay never reaches the network, and the childProcesses option is 'refuse'`,
    )
    expect(refused[runner.summaryStream]).toContain(`    test/child.test.ts > child: ${command} (refused)`)
    expect(counting.connections).toBe(before + 1)
  })

  it.sequential('tapes the Node, Python and curl children a test starts, each in its lane: recorded, then replayed in CI with no connection, a changed question failing the test', async () => {
    // A provider of its own: the other tests of the suite count the requests of theirs.
    const kids = await startFakeProvider({ reply: () => ({ text: 'Hello.' }) })
    try {
      const paths = project('children.test.ts', CHILDREN)
      paths.write('ask.py', ASK_PY)
      const python = findPython([])
      const kidsEnv = (more: Record<string, string> = {}) =>
        env({ FAKE_PROVIDER_URL: kids.url, PYTHON: python, ...more })
      const recorded = await paths.runTests('test/children.test.ts', kidsEnv())
      expect(recorded.code, recorded.output).toBe(0)
      expect(kids.requests.length).toBe(3)
      const cassette = paths.read('test/__cassettes__/children.test.ts/children.jsonl')
      expect(
        cassette
          .trim()
          .split('\n')
          .slice(1)
          .map((line) => JSON.parse(line).lane),
      ).toEqual(['child-1', 'child-2', 'child-3'])
      const connections = kids.connections
      const replayed = await paths.runTests('test/children.test.ts', kidsEnv({ CI: 'true' }))
      expect(replayed.code, replayed.output).toBe(0)
      expect(replayed.output).toContain('1 tape: 1 replayed cleanly')
      const changed = await paths.runTests(
        'test/children.test.ts',
        kidsEnv({ CI: 'true', QUESTION: 'Hello?' }),
      )
      expect(changed.code).toBe(1)
      expect(changed.output).toContain('[agent-tape] Replay miss at step 1 of lane "child-1"')
      expect(changed.output).toContain('"Hi" → "Hello?"')
      expect(kids.connections).toBe(connections)
    } finally {
      await kids.close()
    }
  })

  it.sequential('tapes the HTTPS of a curl child with interceptHttps (without, its tunnel to loopback passes untaped)', async () => {
    const tls = await startTlsServer('model')
    try {
      // The test process (and the gateway's thread in it) and curl trust the server, as they would a
      // real provider; with interceptHttps, curl is given the run's authority instead.
      const tlsEnv = (more: Record<string, string> = {}) =>
        env({
          FAKE_PROVIDER_URL: tls.origin,
          NODE_EXTRA_CA_CERTS: tls.certFile,
          CURL_CA_BUNDLE: tls.certFile,
          ...more,
        })
      const plain = project('https.test.ts', HTTPS_CHILD)
      const named = await plain.runTests('test/https.test.ts', tlsEnv())
      expect(named.code, named.output).toBe(0)
      expect(named.output).toContain('decisions: 0 replayed, 0 recorded, 0 missed, 0 unused')
      const paths = project('https.test.ts', HTTPS_CHILD)
      configure(runner, paths, 'interceptHttps: true')
      const recorded = await paths.runTests('test/https.test.ts', tlsEnv())
      expect(recorded.code, recorded.output).toBe(0)
      const line = paths.read('test/__cassettes__/https.test.ts/https child.jsonl').trim().split('\n')[1]!
      expect(JSON.parse(line)).toMatchObject({ kind: 'llm', lane: 'child-1' })
      const connections = tls.connections
      const replayed = await paths.runTests('test/https.test.ts', tlsEnv({ CI: 'true' }))
      expect(replayed.code, replayed.output).toBe(0)
      expect(replayed.output).toContain('1 tape: 1 replayed cleanly')
      expect(tls.connections).toBe(connections)
    } finally {
      await tls.close()
    }
  })

  it.sequential('refuses the network use of a worker thread a tape starts, and fails its test', async () => {
    const paths = project('worker.test.ts', WORKER)
    const recording = await paths.runTests('test/worker.test.ts', env())
    expect(recording.code).toBe(1)
    const replay = await paths.runTests('test/worker.test.ts', env({ CI: 'true' }))
    expect(replay.code).toBe(1)
    expect(replay.output).toContain(
      `[agent-tape] Blocked a connection to 127.0.0.1:${new URL(model.url).port} from Node's fetch`,
    )
    expect(replay.output).toContain(
      ': this worker thread was started by tape "test/worker.test.ts > worker", which is replaying, and a replay never reaches the network; agent-tape records and replays no request made in a worker thread',
    )
    expect(replay.output).toContain(runner.tests({ failed: 1 }))
    expect(model.requests).toHaveLength(0)
  })

  it.sequential('names a test whose leaked promise reached its tape after it ended, and sends nothing', async () => {
    const paths = project('leaky.test.ts', LEAKY)
    const recording = await paths.runTests('test/leaky.test.ts', env())
    expect(recording.code, recording.output).toBe(0)
    const replay = await paths.runTests('test/leaky.test.ts', env({ CI: 'true' }))
    expect(replay.code, replay.output).toBe(0)
    for (const run of [recording, replay]) {
      expect(run[runner.summaryStream]).toContain(
        [
          '  Used after their test ended (1): a promise the test did not await reached the tape after it finished, and was refused; await every agent call in the test:',
          '    test/leaky.test.ts > leaky: A decision of kind "llm" reached tape "test/leaky.test.ts > leaky" after it finished',
        ].join('\n'),
      )
    }
    expect(model.requests).toHaveLength(0)
  })
})

async function waitFor(check: () => boolean): Promise<void> {
  for (let i = 0; i < 400 && !check(); i++) await new Promise((resolve) => setTimeout(resolve, 5))
  expect(check()).toBe(true)
}
