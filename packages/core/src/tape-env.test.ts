import { expect, it } from 'vitest'
import { type DecisionRecord, parseCassette } from './cassette-format.js'
import { createMemoryStore } from './cassette-store.js'
import { hashEnvValue } from './env-hash.js'
import { openTape } from './open-tape.js'
import { envDrift } from './tape-env.js'

const context = { cassettePath: 'c.jsonl', rerecordCommand: 'rerecord' }
const SALT = 'f00d'

function envRecord(out: Record<string, string | null>): DecisionRecord {
  return {
    seq: 1,
    key: 'env:0123456789abcdef',
    kind: 'env',
    step: 2,
    ms: 0,
    in: { keys: Object.keys(out) },
    out,
  }
}

it('finds no drift when every hash equals the recorded one', () => {
  const hashes = { MODEL: hashEnvValue('gpt-4o', SALT) }
  expect(envDrift(envRecord(hashes), hashes, context)).toBeUndefined()
})

it('lists each variable that changed, was set or was unset since the recording', () => {
  const before = {
    A: hashEnvValue('1', SALT),
    B: null,
    C: hashEnvValue('3', SALT),
    D: hashEnvValue('4', SALT),
  }
  const now = { A: hashEnvValue('2', SALT), B: hashEnvValue('x', SALT), C: null, D: before.D }
  expect(
    envDrift(envRecord(before), now, context)?.message,
  ).toBe(`[agent-tape] Environment drift at step 2: 3 of 4 environment values read through tape.env() differ from the recording (values are compared by hash). Restore the recorded environment, or re-record this test: rerecord.

  cassette  c.jsonl

  A                    changed (recorded ${before.A}, now ${now.A})
  B                    was unset when recorded, now set
  C                    was set when recorded, now unset`)
})

it('reads the values, sorted and once each, and records only their salted hashes', async () => {
  const store = createMemoryStore()
  const environment = { MODEL: 'gpt-4o', REGION: 'eu' }
  const tape = await openTape({ id: 'c', cassettePath: 'c.jsonl', store, mode: 'update', env: environment })
  expect(tape.env(['REGION', 'MODEL', 'REGION', 'UNSET'])).toEqual({
    MODEL: 'gpt-4o',
    REGION: 'eu',
    UNSET: undefined,
  })
  expect(() => tape.env([''])).toThrow('[agent-tape] Invalid tape.env() call')
  await tape.finish()
  const { header, decisions } = parseCassette(store.files['c.jsonl']!, 'c.jsonl')
  const hashes = {
    MODEL: hashEnvValue('gpt-4o', header.envSalt),
    REGION: hashEnvValue('eu', header.envSalt),
    UNSET: null,
  }
  expect(decisions.map((d) => ({ kind: d.kind, in: d.in, out: d.out }))).toEqual([
    { kind: 'env', in: { keys: ['MODEL', 'REGION', 'UNSET'] }, out: hashes },
  ])
  expect(header.env).toEqual(hashes)
})
