import http from 'node:http'
import { createMemoryStore, currentTape } from '@agent-tape/core'
import { tapeHandlers } from '@agent-tape/http/msw'
import { setupServer } from 'msw/node'
import { afterAll, beforeAll, expect, it } from 'vitest'
import { runTaped } from '../support/tape-run.js'

// A tool whose own request goes to a host the tape records (listed in `hosts`, as any API the
// agent calls would be): the request is part of the tool's outcome, not a decision of its own.
const store = createMemoryStore()
let server: http.Server
let origin = ''
let msw: ReturnType<typeof setupServer>
let upstream = { tempC: 18 }
let hits = 0

beforeAll(async () => {
  server = http.createServer((_req, res) => {
    hits++
    res.setHeader('content-type', 'application/json')
    res.end(JSON.stringify(upstream))
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const port = (server.address() as { port: number }).port
  origin = `http://127.0.0.1:${port}`
  msw = setupServer(...tapeHandlers({ hosts: [`127.0.0.1:${port}`] }))
  msw.listen({ onUnhandledRequest: 'error' })
})
afterAll(() => {
  msw.close()
  server.close()
})

const weather = async (city: string) => (await fetch(`${origin}/weather?city=${city}`)).json()
const agent = () => currentTape()!.tools({ weather }).weather('Paris')
const direct = () => weather('Paris')

it('records a tool and not the request it makes, and replays the tool without the request', async () => {
  upstream = { tempC: 18 }
  const rec = await runTaped(store, 'nested.jsonl', 'auto', agent)
  expect(rec.result).toEqual({ tempC: 18 })
  expect(rec.state.decisions.map((d) => d.kind)).toEqual(['tool'])
  const before = hits
  const replay = await runTaped(store, 'nested.jsonl', 'replay', agent)
  expect(replay.failure).toBeUndefined()
  expect(replay.state).toMatchObject({ status: 'clean', replayed: 1, unused: 0 })
  expect(hits).toBe(before)
})

it('still records the same request as its own decision when the agent makes it outside a tool', async () => {
  const rec = await runTaped(store, 'direct.jsonl', 'auto', direct)
  expect(rec.state.decisions.map((d) => d.kind)).toEqual(['http'])
  const before = hits
  expect((await runTaped(store, 'direct.jsonl', 'replay', direct)).state.status).toBe('clean')
  expect(hits).toBe(before)
})

it('in live-tools mode, the tool makes its request for real, and a changed upstream is drift', async () => {
  upstream = { tempC: 18 }
  await runTaped(store, 'live.jsonl', 'auto', agent)
  let before = hits
  const same = await runTaped(store, 'live.jsonl', 'live-tools', agent)
  expect(same.state.status).toBe('clean')
  expect(hits).toBe(before + 1)
  upstream = { tempC: 25 }
  before = hits
  const moved = await runTaped(store, 'live.jsonl', 'live-tools', agent)
  expect(hits).toBe(before + 1)
  expect(moved.state.drifted).toEqual(['step 0, tool "weather"'])
  expect(moved.failure?.message).toContain('result.tempC: 18 → 25')
})
