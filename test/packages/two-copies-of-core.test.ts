import { createRequire } from 'node:module'
import * as esm from '@agent-tape/core/internal'
import { expect, it } from 'vitest'

// A tape opened by one copy of core is served by boundaries another copy loaded: Jest's module
// registry loads its own copy for each test file, while the runner's environment opens the tape.
// The package's CommonJS and ES module builds are two such copies in one process.
const cjs = createRequire(import.meta.url)('@agent-tape/core/internal') as typeof esm

it('loads two copies of core', () => {
  expect(cjs.tapeInternals).not.toBe(esm.tapeInternals)
  expect(cjs.Tape).not.toBe(esm.Tape)
})

it('gives the handle of a tape opened by the other copy, which answers for that tape', async () => {
  const store = esm.createMemoryStore()
  const recording = await esm.openTape({ id: 't', cassettePath: 'c.jsonl', store, mode: 'update', env: {} })
  await recording.call('tool', { q: 1 }, () => 'one')
  await recording.finish()

  const replaying = await esm.openTape({ id: 't', cassettePath: 'c.jsonl', store, mode: 'replay', env: {} })
  const handle = cjs.tapeInternals(replaying)
  expect(handle).toBe(esm.tapeInternals(replaying))
  expect(handle.recordedDecisions().map((d) => d.key)).toEqual([
    esm.computeKey('tool', { q: 1 }, { step: 0 }),
  ])
  expect(handle.openedCassette()?.header.test).toBe('t')
  expect(await replaying.call('tool', { q: 2 }, () => 'two').catch((error) => error.code)).toBe(
    'ERR_TAPE_MISS',
  )
  expect(handle.divergedRun()?.decisions.map((d) => d.in)).toEqual([{ q: 2 }])
})

it("finds, in the other copy's tape context, the tape this copy runs with, and its handle", async () => {
  const store = esm.createMemoryStore()
  const tape = await cjs.openTape({ id: 't', cassettePath: 'c.jsonl', store, mode: 'update', env: {} })
  await esm.runWithTape(tape, async () => {
    const current = esm.currentTape()
    expect(current).toBe(tape)
    expect(esm.answersFromCassette(current!)).toBe(false)
    expect(esm.tapeInternals(current!).completedRecording()?.decisions).toEqual([])
  })
})
