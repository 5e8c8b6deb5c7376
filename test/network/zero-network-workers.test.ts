import { Worker } from 'node:worker_threads'
import { createMemoryStore, isAgentTapeError } from '@agent-tape/core'
import { installHttpBoundary } from '@agent-tape/http'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type CountingServer, startCountingServer } from '../support/counting-server.js'
import { runTaped } from '../support/tape-run.js'

// Worker threads started by a tape's test belong to the tape: agent-tape records and replays
// nothing there, so their network use is refused while the tape runs, and the tape fails with it.
// The counting server is a declared model endpoint: on loopback, but the tape's to answer.
const boundary = installHttpBoundary()
let server: CountingServer
const WORKER = new URL('./fixtures/network-worker.mjs', import.meta.url)

beforeAll(async () => {
  server = await startCountingServer('worker')
  boundary.addModelEndpoints(server.origin)
})
afterAll(() => server.close())

interface Outcome {
  ok?: unknown
  error?: string
  code?: string
}

/** Starts the fixture worker with `data` and waits for what it posts. */
function inWorker(data: Record<string, unknown>, options: { eval?: boolean } = {}): Promise<Outcome> {
  const worker = options.eval
    ? new Worker(`import(${JSON.stringify(WORKER.href)})`, { eval: true, workerData: data })
    : new Worker(WORKER, { workerData: data })
  return new Promise((resolve, reject) => {
    worker.once('message', (outcome: Outcome) => {
      void worker.terminate()
      resolve(outcome)
    })
    worker.once('error', reject)
  })
}

async function cassette() {
  const store = createMemoryStore()
  await runTaped(store, 'worker.jsonl', 'update', async () => {})
  return store
}

const TASKS: Record<string, [Record<string, unknown>, { eval?: boolean }, string]> = {
  'a fetch from a worker file': [{ task: 'fetch' }, {}, 'Blocked a connection to 127.0.0.1:'],
  'a fetch from a worker started from code (eval)': [
    { task: 'fetch' },
    { eval: true },
    'Blocked a connection to 127.0.0.1:',
  ],
  'a DNS lookup from a worker': [
    { task: 'lookup', host: 'api.example.test' },
    {},
    'Blocked a DNS lookup of api.example.test from dns.promises.lookup',
  ],
}

describe.each([
  ['replay', 'replaying, and a replay never reaches the network'],
  ['update', 'recording'],
] as const)('in %s', (mode, state) => {
  it.each(Object.entries(TASKS))(
    '%s is refused, and fails the tape that started the worker',
    async (_, [data, options, blocked]) => {
      const before = server.connections
      const run = await runTaped(await cassette(), 'worker.jsonl', mode, () =>
        inWorker({ ...data, url: `${server.origin}/v1/data` }, options),
      )
      expect(run.result?.error).toContain(`[agent-tape] ${blocked}`)
      expect(run.result?.error).toContain(
        `: this worker thread was started by tape "worker.jsonl", which is ${state}; `,
      )
      expect(run.result?.code).toBe('ERR_TAPE_NETWORK')
      // The worker caught the error and answered; the tape fails with it all the same.
      expect(run.error).toBeUndefined()
      expect(isAgentTapeError(run.failure) && run.failure.code).toBe('ERR_TAPE_NETWORK')
      expect(run.failure?.message).toBe(run.result?.error)
      expect(run.state.status).toBe(mode === 'replay' ? 'diverged' : 'recorded')
      expect(server.connections).toBe(before)
    },
  )
})

it('fails the tape with the first refusal of each worker, and counts the others', async () => {
  const run = await runTaped(await cassette(), 'worker.jsonl', 'replay', async () => {
    await inWorker({ task: 'lookup', host: 'api.example.test' })
    const twice = new Worker(
      `const { parentPort, workerData } = require('node:worker_threads')
       ;(async () => {
         for (const path of ['/v1/a', '/v1/b', '/v1/c']) await fetch(workerData + path).catch(() => {})
         parentPort.postMessage('done')
       })()`,
      { eval: true, workerData: server.origin },
    )
    await new Promise((resolve) => twice.once('message', resolve))
    await twice.terminate()
  })
  expect(run.state.divergences.map((d) => d.message.split(' from ')[0])).toEqual([
    '[agent-tape] Blocked a DNS lookup of api.example.test',
    `[agent-tape] Blocked a connection to 127.0.0.1:${server.port}`,
  ])
  expect(run.state.divergences[1]!.message).toMatch(/\n\n\(2 more refused in the same worker\.\)$/)
})

it('runs a worker that uses no network as before, inside a replaying tape', async () => {
  const run = await runTaped(await cassette(), 'worker.jsonl', 'replay', () =>
    inWorker({ task: 'compute', n: 4 }),
  )
  expect(run).toMatchObject({ result: { ok: 14 }, error: undefined, state: { status: 'clean' } })
})

it('lets a worker reach loopback that is not a model endpoint, and hosts in allowHosts', async () => {
  const local = await startCountingServer('local')
  try {
    const run = await runTaped(await cassette(), 'worker.jsonl', 'replay', () =>
      inWorker({ task: 'fetch', url: `${local.origin}/local` }),
    )
    expect(run).toMatchObject({
      result: { ok: { server: 'local', path: '/local' } },
      state: { status: 'clean' },
    })
    expect(local.connections).toBe(1)
    const remove = boundary.addAllowedHosts(`127.0.0.1:${server.port}`)
    const allowed = await runTaped(await cassette(), 'worker.jsonl', 'replay', () =>
      inWorker({ task: 'fetch', url: `${server.origin}/v1/allowed` }),
    )
    remove()
    expect(allowed).toMatchObject({ result: { ok: { server: 'worker' } }, state: { status: 'clean' } })
  } finally {
    await local.close()
  }
})

it('leaves workers started outside tapes alone, and a worker whose tape finished', async () => {
  const before = server.connections
  const url = `${server.origin}/v1/outside`
  expect(await inWorker({ task: 'fetch', url })).toEqual({ ok: { server: 'worker', path: '/v1/outside' } })
  // Started in the tape, used after it finished.
  let started: Worker | undefined
  await runTaped(await cassette(), 'worker.jsonl', 'replay', async () => {
    started = new Worker(
      `const { parentPort } = require('node:worker_threads')
       parentPort.once('message', async (url) => parentPort.postMessage(await (await fetch(url)).json()))`,
      { eval: true },
    )
  })
  const after = new Promise((resolve) => started!.once('message', resolve))
  started!.postMessage(`${server.origin}/v1/later`)
  expect(await after).toEqual({ server: 'worker', path: '/v1/later' })
  await started!.terminate()
  expect(server.connections).toBe(before + 2)
})
