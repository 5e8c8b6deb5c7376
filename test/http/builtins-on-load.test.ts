import { execFile } from 'node:child_process'
import { resolve } from 'node:path'
import { promisify } from 'node:util'
import { describe, expect, it } from 'vitest'
import { nodeBinary } from '../support/node-binary.js'

// The setup stands in for the functions of node:http, https, http2 and worker_threads when the test
// file loads them (module.registerHooks, Node 22.15 and later) or at the first tape, so that a file
// that never loads them does not pay for loading them; on Node 20 it loads them at the setup. Either
// way what a module keeps is the stand-in, and a request through it is taped.
const run = promisify(execFile)
const SCRIPT = resolve(import.meta.dirname, 'fixtures/builtins-on-load.mjs')
const FAMILY = ['http', 'https', 'http2', 'worker_threads']
const STANDS_IN = { 'http.request': true, 'http2.connect': true, Worker: true }
const NONE = { 'http.request': false, 'http2.connect': false, Worker: false }

async function observe(major: 20 | 22 | 24, scenario: 'kept' | 'first-tape') {
  const node = major === 20 ? process.execPath : await nodeBinary(major)
  const { stdout } = await run(node, [SCRIPT, scenario], { timeout: 60_000, env: { ...process.env, CI: '' } })
  return JSON.parse(stdout.trim().split('\n').pop()!)
}

describe.each([22, 24, 20] as const)('on Node %s', (major) => {
  const lazy = major !== 20

  it('stands in for a builtin loaded after the setup before any module receives it, and tapes what a module kept', async () => {
    const out = await observe(major, 'kept')
    expect(out.node).toMatch(new RegExp(`^v${major}\\.`))
    expect(out.loadedAtSetup).toEqual(lazy ? [] : FAMILY)
    // Requiring node:http loads it alone (http2 loads https and tls with it).
    if (lazy) expect(out.afterRequire).toEqual(['http'])
    expect(out.kept).toEqual(STANDS_IN)
    expect(out.record).toMatchObject({ result: { path: '/v1/kept' }, status: 'recorded', recorded: 1 })
    expect(out.replay).toMatchObject({ result: { path: '/v1/kept' }, status: 'clean', replayed: 1 })
    expect(out.replayConnections).toBe(0)
    expect(out.afterDispose).toEqual(NONE)
  }, 120_000)

  it('has the first tape load and stand in for every builtin of the family not loaded yet', async () => {
    const out = await observe(major, 'first-tape')
    expect(out.loadedAtSetup).toEqual(lazy ? [] : FAMILY)
    expect(out.inTape.loaded).toEqual(FAMILY)
    expect(out.inTape.standsIn).toEqual({ ...STANDS_IN, 'https.get': true })
    expect(out.afterDispose).toEqual(NONE)
  }, 120_000)
})
