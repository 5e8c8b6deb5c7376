import { execFile } from 'node:child_process'
import { resolve } from 'node:path'
import { promisify } from 'node:util'
import { expect, it } from 'vitest'
import { nodeBinary } from '../support/node-binary.js'

const run = promisify(execFile)

it('on Node 22, openai 7 with undici 8 fetch records, replays with no connection, and undici 8 clients are refused', async () => {
  const node = await nodeBinary(22)
  const script = resolve(import.meta.dirname, 'fixtures/undici8-openai7.mjs')
  const { stdout } = await run(node, [script], { timeout: 60_000, env: { ...process.env, CI: '' } })
  const out = JSON.parse(stdout.trim().split('\n').pop()!)
  expect(out.node).toMatch(/^v22\./)
  expect(out.record).toMatchObject({ result: 'Hello through undici 8.', status: 'recorded', recorded: 1 })
  expect(out.afterRecord).toBeGreaterThan(0)
  expect(out.replay).toMatchObject({
    result: 'Hello through undici 8.',
    status: 'clean',
    replayed: 1,
    failure: null,
  })
  expect(out.request).toMatchObject({ status: 'clean', replayed: 1 })
  expect(out.request.result).toContain('through ')
  expect(out.newHost.status).toBe('diverged')
  expect(out.newHost.failure).toMatch(/^\[agent-tape\] Replay miss at step 0, .*GET \/v1\/other/)
  expect(Object.keys(out.refused)).toHaveLength(6)
  for (const [name, run] of Object.entries(out.refused) as [string, { status: string; failure: string }][]) {
    expect(run.status, name).toBe('diverged')
    expect(run.failure, name).toContain('from the undici package')
    expect(run.failure, name).toContain('is replaying, and a replay never reaches the network')
  }
  // Not one connection reached either server after the recording.
  expect(out.afterReplay).toBe(out.afterRecord)
  expect(out.freshConnections).toBe(0)
}, 360_000)
