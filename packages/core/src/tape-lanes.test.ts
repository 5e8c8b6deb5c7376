import { expect, it } from 'vitest'
import { isConfigError } from './errors.js'
import { Lanes } from './tape-lanes.js'

it('starts a new step with each model request, and gives other decisions the step of the latest', () => {
  const lanes = new Lanes()
  expect(lanes.place('env')).toEqual({ step: 0 })
  expect(lanes.place('llm')).toEqual({ step: 1 })
  expect(lanes.place('tool')).toEqual({ step: 1 })
  expect(lanes.place('llm')).toEqual({ step: 2 })
  expect(lanes.step).toBe(2)
})

it('counts the steps of each lane apart, nested lanes under their parent path', () => {
  const lanes = new Lanes()
  lanes.place('llm')
  const inner = lanes.run('researcher', () => {
    const first = lanes.place('llm')
    const nested = lanes.run('reader', () => [lanes.place('llm'), lanes.place('tool')])
    return [first, ...nested, lanes.place('llm')]
  })
  expect(inner).toEqual([
    { step: 1, lane: 'researcher' },
    { step: 1, lane: 'researcher/reader' },
    { step: 1, lane: 'researcher/reader' },
    { step: 2, lane: 'researcher' },
  ])
  expect(lanes.place('tool')).toEqual({ step: 1 })
})

it('refuses a lane of a name already running until its promise settles, and invalid names', async () => {
  const lanes = new Lanes()
  let release = () => {}
  const running = lanes.run('worker', () => new Promise<void>((resolve) => (release = resolve)))
  const twice = (() => {
    try {
      lanes.run('worker', () => 0)
    } catch (error) {
      return error
    }
  })()
  expect(isConfigError(twice) && twice.message).toMatch(/^\[agent-tape\] Lane "worker" is already running/)
  release()
  await running
  expect(lanes.run('worker', () => 'again')).toBe('again')
  expect(() => lanes.run('two words', () => 0)).toThrow('[agent-tape] Invalid lane name "two words"')
})

it('frees a lane whose function threw', () => {
  const lanes = new Lanes()
  expect(() =>
    lanes.run('worker', () => {
      throw new Error('boom')
    }),
  ).toThrow('boom')
  expect(lanes.run('worker', () => 'ok')).toBe('ok')
})

it("keeps each run's lanes apart when the runs nest their lanes in one another", async () => {
  const a = new Lanes()
  const b = new Lanes()
  const seen = await a.run('planner', () =>
    b.run('worker', async () => {
      await Promise.resolve()
      return [
        a.place('llm'),
        b.place('llm'),
        await a.run('critic', async () => [a.place('llm'), b.place('llm')]),
      ]
    }),
  )
  expect(seen).toEqual([
    { step: 1, lane: 'planner' },
    { step: 1, lane: 'worker' },
    [
      { step: 1, lane: 'planner/critic' },
      { step: 2, lane: 'worker' },
    ],
  ])
  expect([a.place('llm'), b.place('llm')]).toEqual([{ step: 1 }, { step: 1 }])
})

it("places the decisions of code in no lane in the tape's own lane, read once at the first decision", () => {
  let reads = 0
  const lanes = new Lanes(() => {
    reads++
    return '1/2'
  })
  expect(reads).toBe(0)
  expect(lanes.place('llm')).toEqual({ step: 1, lane: '1/2' })
  expect(lanes.run('reader', () => lanes.place('llm'))).toEqual({ step: 1, lane: '1/2/reader' })
  expect(lanes.place('tool')).toEqual({ step: 1, lane: '1/2' })
  expect(reads).toBe(1)
  expect(new Lanes('worker').place('llm')).toEqual({ step: 1, lane: 'worker' })
  expect(new Lanes('').place('llm')).toEqual({ step: 1 })
})

it("refuses a tape's own lane that is not a lane path", () => {
  expect(() => new Lanes('a//b').place('llm')).toThrow('[agent-tape] Invalid lane name ""')
  expect(() => new Lanes(() => 'two words').place('llm')).toThrow(
    '[agent-tape] Invalid lane name "two words"',
  )
})
