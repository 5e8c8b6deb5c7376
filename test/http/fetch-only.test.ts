import { createMemoryStore } from '@agent-tape/core'
import { installHttpBoundary } from '@agent-tape/http'
import { installedBoundary } from '@agent-tape/http/internal'
import OpenAI from 'openai'
import { afterAll, beforeAll, expect, it } from 'vitest'
import { type CountingServer, startCountingServer } from '../support/counting-server.js'
import { runTaped } from '../support/tape-run.js'

// A process whose tapes only `fetch` (every model SDK but a few): the boundary answers `fetch`
// itself, and the interceptor of node:http, which wraps the global Headers, Request and Response
// once applied and slows every fetch of the process, is never applied. In a fresh process.
const boundary = installHttpBoundary()
const { Headers: NodeHeaders, Request: NodeRequest, Response: NodeResponse } = globalThis
let server: CountingServer

beforeAll(async () => {
  server = await startCountingServer('model')
  boundary.addModelEndpoints(server.origin)
})
afterAll(async () => {
  await boundary.dispose()
  await server.close()
})

it('records and replays fetch and an SDK on it with the globals untouched and no interceptor applied', async () => {
  const store = createMemoryStore()
  const openai = new OpenAI({ apiKey: 'sk-test', baseURL: `${server.origin}/v1`, maxRetries: 0 })
  const run = () =>
    Promise.all([
      fetch(`${server.origin}/v1/plain`, { method: 'POST', body: '{"a":1}' }).then((r) => r.json()),
      openai.get('/sdk'),
    ])
  const recorded = await runTaped(store, 'fetch.jsonl', 'auto', run)
  expect(recorded.state).toMatchObject({ status: 'recorded', recorded: 2 })
  const before = { connections: server.connections, requests: server.requests }
  const replayed = await runTaped(store, 'fetch.jsonl', 'replay', run)
  expect(replayed.state).toMatchObject({ status: 'clean', replayed: 2 })
  expect(replayed.result).toEqual(recorded.result)
  expect({ connections: server.connections, requests: server.requests }).toEqual(before)
  expect(installedBoundary()?.loaded()).toBe(true)
  expect(Symbol.for('client-request-interceptor') in globalThis).toBe(false)
  expect(Symbol.for('fetch-interceptor') in globalThis).toBe(false)
  expect([globalThis.Headers, globalThis.Request, globalThis.Response]).toEqual([
    NodeHeaders,
    NodeRequest,
    NodeResponse,
  ])
})

it('gives a replayed answer the URL it was asked at, as fetch does', async () => {
  const store = createMemoryStore()
  const url = `${server.origin}/v1/where?page=2`
  await runTaped(store, 'url.jsonl', 'auto', () => fetch(url))
  const replayed = await runTaped(store, 'url.jsonl', 'replay', async () => {
    const response = await fetch(url)
    return { url: response.url, ok: response.ok, body: await response.json() }
  })
  expect(replayed.result).toEqual({ url, ok: true, body: { server: 'model', path: '/v1/where?page=2' } })
})

it("rejects with the caller's reason when the caller aborts, whatever the tape was doing", async () => {
  const store = createMemoryStore()
  const url = `${server.origin}/v1/abort`
  await runTaped(store, 'abort.jsonl', 'auto', () => fetch(url).then((r) => r.text()))
  const reason = new Error('the caller gave up')
  const replayed = await runTaped(store, 'abort.jsonl', 'replay', () =>
    fetch(url, { signal: AbortSignal.abort(reason) }).then(
      () => 'answered',
      (error: unknown) => error,
    ),
  )
  expect(replayed.result).toBe(reason)
})
