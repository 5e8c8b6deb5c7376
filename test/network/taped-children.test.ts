import childProcess from 'node:child_process'
import { promisify } from 'node:util'
import { createMemoryStore, parseCassette } from '@agent-tape/core'
import { type FakeProvider, startFakeProvider } from '@agent-tape/fake-provider'
import { installHttpBoundary } from '@agent-tape/http'
import { childProcessesOf } from '@agent-tape/http/internal'
import { afterAll, beforeAll, expect, it } from 'vitest'
import { findPython } from '../support/python.js'
import { runTaped } from '../support/tape-run.js'

// The child processes a tape's test starts are taped by default: a Node child gets the tape's
// boundary in a lane of its own, its requests recorded into the test's cassette and replayed from
// it with no connection; a request it makes that the cassette cannot answer fails the test.
let provider: FakeProvider
const execFile = promisify(childProcess.execFile)
const node = process.execPath

beforeAll(async () => {
  provider = await startFakeProvider({
    reply: (request) => ({ text: `echo: ${JSON.stringify(request.body.messages)}` }),
  })
  installHttpBoundary({ modelEndpoints: [provider.url] })
})
afterAll(() => provider.close())

/** A Node child asking the model one question, printing the answer. */
function ask(question: string): string[] {
  const body = JSON.stringify({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: question }] })
  return [
    '-e',
    `fetch(${JSON.stringify(`${provider.openaiBaseURL}/chat/completions`)}, { method: 'POST', headers: { 'content-type': 'application/json', authorization: 'Bearer test-key' }, body: ${JSON.stringify(body)} }).then((r) => r.json()).then((a) => process.stdout.write(a.choices[0].message.content))`,
  ]
}

/**
 * The test body: two children asking the model, one after the other, by `execFile` and by
 * `spawn` (a synchronous start would block this process, and the fake provider in it).
 */
function body(second = 'And Oslo?') {
  return async () => {
    const first = (await execFile(node, ask('Weather in Paris?'))).stdout
    const other = await new Promise<string>((resolve, reject) => {
      const child = childProcess.spawn(node, ask(second))
      let out = ''
      child.stdout.setEncoding('utf8').on('data', (text: string) => (out += text))
      child.on('error', reject)
      child.on('close', () => resolve(out))
    })
    return [first, other]
  }
}

it('records the requests of Node children in lanes of their own, and replays them with no connection', async () => {
  const store = createMemoryStore()
  const recorded = await runTaped(store, 'kids.jsonl', 'update', body())
  expect(recorded.error).toBeUndefined()
  expect(recorded.failure).toBeUndefined()
  expect(recorded.result?.[0]).toContain('Weather in Paris?')
  expect(childProcessesOf(recorded.tape)).toEqual([
    expect.stringMatching(/ \(lane child-1\)$/),
    expect.stringMatching(/ \(lane child-2\)$/),
  ])
  const cassette = parseCassette((await store.read('kids.jsonl'))!, 'kids.jsonl')
  expect(cassette.decisions.map((d) => [d.kind, d.lane])).toEqual([
    ['llm', 'child-1'],
    ['llm', 'child-2'],
  ])
  expect(recorded.state.recorded).toBe(2)

  const before = provider.connections
  const replayed = await runTaped(store, 'kids.jsonl', 'replay', body())
  expect(replayed.failure).toBeUndefined()
  expect(replayed.result).toEqual(recorded.result)
  expect(replayed.state.status).toBe('clean')
  expect(provider.connections).toBe(before)
})

it('fails the replay with the miss and its diff when a child asks something else, reaching nothing', async () => {
  const store = createMemoryStore()
  await runTaped(store, 'kids.jsonl', 'update', body())
  const before = provider.connections
  const replayed = await runTaped(store, 'kids.jsonl', 'replay', body('And Rome?'))
  expect(replayed.failure?.message).toContain('[agent-tape] Replay miss')
  expect(replayed.failure?.message).toContain('"And Oslo?" → "And Rome?"')
  expect(replayed.state.status).toBe('diverged')
  expect(provider.connections).toBe(before)
})

it("with childProcesses: 'allow', starts a child untaped: it reaches the network in replay, and the summary names it", async () => {
  const store = createMemoryStore()
  await runTaped(store, 'kids.jsonl', 'update', async () => {})
  installHttpBoundary({ childProcesses: 'allow' })
  try {
    const before = provider.connections
    const replayed = await runTaped(
      store,
      'kids.jsonl',
      'replay',
      async () => (await execFile(node, ask('Hi?'))).stdout,
    )
    expect(replayed.failure).toBeUndefined()
    expect(replayed.result).toContain('Hi?')
    expect(childProcessesOf(replayed.tape)).toEqual([expect.not.stringContaining('(lane')])
    expect(provider.connections).toBe(before + 1)
  } finally {
    installHttpBoundary({ childProcesses: 'tape' })
  }
})

/** A Python child asking the model through `OPENAI_BASE_URL` (the gateway's, in a taped child), with urllib. */
function askInPython(question: string): string[] {
  const script = [
    'import json, os, sys, urllib.error, urllib.request',
    "body = json.dumps({'model': 'gpt-4o-mini', 'messages': [{'role': 'user', 'content': sys.argv[1]}]}).encode()",
    "request = urllib.request.Request(os.environ['OPENAI_BASE_URL'] + '/chat/completions', data=body, headers={'content-type': 'application/json', 'authorization': 'Bearer test-key'})",
    'try:',
    "    sys.stdout.write(json.load(urllib.request.urlopen(request))['choices'][0]['message']['content'])",
    'except urllib.error.HTTPError as error:',
    "    sys.exit(f'{error}: {error.read().decode()}')",
  ].join('\n')
  return ['-c', script, question]
}

it('tapes a child outside Node through the gateway in a thread: Python recorded, then replayed while the test waits on it synchronously', async () => {
  const python = findPython([])
  const store = createMemoryStore()
  const env = { ...process.env, OPENAI_BASE_URL: provider.openaiBaseURL }
  const recorded = await runTaped(store, 'py.jsonl', 'update', async () => {
    return (await execFile(python, askInPython('Weather in Lima?'), { env })).stdout
  })
  expect(recorded.error).toBeUndefined()
  expect(recorded.failure).toBeUndefined()
  expect(recorded.result).toContain('Weather in Lima?')
  const cassette = parseCassette((await store.read('py.jsonl'))!, 'py.jsonl')
  expect(cassette.decisions.map((d) => [d.kind, d.lane])).toEqual([['llm', 'child-1']])

  // The provider in this process could not answer while it waits: the thread's gateway does.
  const before = provider.connections
  const replayed = await runTaped(store, 'py.jsonl', 'replay', async () =>
    childProcess.execFileSync(python, askInPython('Weather in Lima?'), { env, encoding: 'utf8' }),
  )
  expect(replayed.failure).toBeUndefined()
  expect(replayed.result).toBe(recorded.result)
  expect(provider.connections).toBe(before)

  // A changed question misses: the child gets the provider's error shape, the test fails with the diff.
  const missed = await runTaped(store, 'py.jsonl', 'replay', async () => {
    try {
      return childProcess.execFileSync(python, askInPython('Weather in Quito?'), {
        env,
        encoding: 'utf8',
        stdio: 'pipe',
      })
    } catch (error) {
      return `child failed: ${(error as { stderr?: string }).stderr?.split('\n').at(-2)}`
    }
  })
  expect(missed.result).toContain(
    'child failed: HTTP Error 400: : {"error":{"message":"[agent-tape] Replay miss',
  )
  expect(missed.failure?.message).toContain('[agent-tape] Replay miss')
  expect(missed.failure?.message).toContain('"Weather in Lima?" → "Weather in Quito?"')
  expect(provider.connections).toBe(before)
})

it('refuses in replay, and fails the test with it, what a child outside Node sends that the gateway cannot answer', async () => {
  const store = createMemoryStore()
  await runTaped(store, 'tunnel.jsonl', 'update', async () => {})
  const replayed = await runTaped(store, 'tunnel.jsonl', 'replay', async () => {
    const run = await execFile('sh', [
      '-c',
      'curl -s -o /dev/null -w "%{http_code}" https://api.example.invalid/v1/x; true',
    ])
    return run.stdout
  })
  expect(replayed.result).toBe('000')
  expect(replayed.failure?.message).toContain(
    "[agent-tape] Cannot replay requests of the test's child processes outside Node: CONNECT api.example.invalid:443",
  )
})
