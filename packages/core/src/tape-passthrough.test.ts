import { expect, it } from 'vitest'
import { createMemoryStore } from './cassette-store.js'
import { IgnorePaths } from './ignore-paths.js'
import { KeyHasher } from './key-hasher.js'
import { RunLog } from './run-log.js'
import { SecretScanner } from './secrets/index.js'
import { PassthroughPart } from './tape-passthrough.js'

it('runs every decision for real, lists it under its place in the run, and writes nothing', async () => {
  const store = createMemoryStore()
  const log = new RunLog()
  const part = new PassthroughPart({
    options: { id: 't', cassettePath: 'c.jsonl', store },
    mode: 'live',
    divergence: { cassettePath: 'c.jsonl', rerecordCommand: 'rerecord' },
    log,
    keys: new KeyHasher(),
    secrets: new SecretScanner(),
    harness: undefined,
    ignores: new IgnorePaths([]),
  })
  const decision = {
    kind: 'llm',
    key: 'llm:0000000000000001',
    label: () => 'model request',
    position: { step: 1 },
    asksModel: true,
    normalized: {},
    keyed: {},
    decisionIndex: 4,
  } as const
  expect(await part.call(decision, () => 'live answer')).toBe('live answer')
  expect(log.decisions).toEqual([
    {
      seq: 4,
      key: decision.key,
      kind: 'llm',
      step: 1,
      asksModel: true,
      label: 'model request',
      status: 'passthrough',
    },
  ])
  expect(await part.finish()).toEqual({ status: 'passthrough', written: false, writeSkipped: 'passthrough' })
  expect(store.files).toEqual({})
})
