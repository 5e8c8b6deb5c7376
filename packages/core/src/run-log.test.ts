import { expect, it } from 'vitest'
import type { DecisionRecord } from './cassette-format.js'
import { isAgentTapeError } from './errors.js'
import { RunLog } from './run-log.js'

const HEAD = { id: 't', cassettePath: 'c.jsonl', mode: 'auto', action: 'replay' } as const
const NONE = { inCassette: 0, replayed: 0, recorded: 0, missed: 0, unused: [] }

it('is running until the part ended the run, and lists what the run left unused after its own decisions', () => {
  const log = new RunLog()
  const position = { step: 1 }
  log.note(
    {
      kind: 'llm',
      key: 'llm:0000000000000001',
      label: 'model request',
      position,
      decisionIndex: 1,
    },
    1,
    'replayed',
  )
  const unused: DecisionRecord = {
    seq: 2,
    key: 'tool:0000000000000002',
    kind: 'tool',
    step: 1,
    ms: 0,
    in: { name: 'refund' },
  }
  const tally = { ...NONE, inCassette: 2, replayed: 1, unused: [unused] }
  expect(log.snapshot(HEAD, tally, undefined)).toMatchObject({ status: 'running', written: false, unused: 1 })
  expect(log.snapshot(HEAD, tally, undefined)).not.toHaveProperty('writeSkipped')
  const state = log.snapshot(HEAD, tally, { status: 'clean', written: false, writeSkipped: 'replay' })
  expect(state).toMatchObject({
    ...HEAD,
    status: 'clean',
    inCassette: 2,
    replayed: 1,
    writeSkipped: 'replay',
  })
  expect(state.decisions.map((d) => [d.seq, d.label, d.status])).toEqual([
    [1, 'model request', 'replayed'],
    [2, 'tool "refund"', 'unused'],
  ])
})

it('says each warning once, and copies what it reports', () => {
  const log = new RunLog()
  log.warn('host not configured')
  log.warn('host not configured')
  log.countNormalizations(['today', 'today'])
  const state = log.snapshot(HEAD, NONE, undefined)
  expect(state).toMatchObject({ warnings: ['host not configured'], normalizations: { today: 2 } })
  state.warnings.push('changed by a reader')
  expect(log.warnings).toEqual(['host not configured'])
})

it('turns a stack overflow while walking an input into a divergence that says so', () => {
  const log = new RunLog()
  const overflow = () => {
    throw new RangeError('Maximum call stack size exceeded')
  }
  const error = (() => {
    try {
      log.walk('search', overflow)
    } catch (e) {
      return e
    }
  })()
  expect(isAgentTapeError(error) && error.code).toBe('ERR_TAPE_USAGE')
  expect(log.divergences).toEqual([error])
  expect(() =>
    log.walk('search', () => {
      throw new TypeError('not an overflow')
    }),
  ).toThrow(TypeError)
  expect(log.divergences).toHaveLength(1)
})
