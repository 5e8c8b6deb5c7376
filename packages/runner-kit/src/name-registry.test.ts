import { expect, it } from 'vitest'
import { TapeNameRegistry } from './name-registry.js'

it('rejects a second tape with the same name in one describe path of one file, naming both tests', () => {
  const registry = new TapeNameRegistry()
  expect(registry.claim('test/a.test.ts', 'issue-412', [], { testName: 'issue-412', line: 3 })).toBe(
    'issue-412',
  )
  registry.claim('test/b.test.ts', 'issue-412', [], { testName: 'issue-412' })
  expect(() =>
    registry.claim('test/a.test.ts', 'issue-412', [], { testName: 'issue-412', line: 9 }),
  ).toThrowError(
    '[agent-tape] Duplicate tape name "issue-412" in test/a.test.ts: the tests "issue-412" (line 3) and "issue-412" (line 9) would share one cassette. Give each tape of a describe block its own name.',
  )
})

it('gives one name in two describes two cassettes, and tells them by name', () => {
  const registry = new TapeNameRegistry()
  expect(registry.claim('test/a.test.ts', 'happy', ['checkout'], { testName: 'checkout > happy' })).toBe(
    'checkout/happy',
  )
  expect(registry.claim('test/a.test.ts', 'happy', ['refund'], { testName: 'refund > happy' })).toBe(
    'refund/happy',
  )
  expect(registry.claim('test/a.test.ts', 'happy', [], { testName: 'happy' })).toBe('happy')
  expect(registry.isUnique('test/a.test.ts', 'happy')).toBe(false)
  registry.claim('test/a.test.ts', 'sad', ['refund', 'partial'], { testName: 'refund > partial > sad' })
  expect(registry.isUnique('test/a.test.ts', 'sad')).toBe(true)
  expect(registry.isUnique('test/b.test.ts', 'sad')).toBe(false)
})

it('rejects two describes whose folders come out the same, naming the cassette they would share', () => {
  const registry = new TapeNameRegistry()
  registry.claim('test/a.test.ts', 'list', ['GET /users'], { testName: 'GET /users > list', line: 2 })
  expect(() =>
    registry.claim('test/a.test.ts', 'list', ['GET :users'], { testName: 'GET :users > list', line: 7 }),
  ).toThrowError(
    '[agent-tape] Duplicate tape name "list" in test/a.test.ts: the tests "GET /users > list" (line 2) and "GET :users > list" (line 7) would share one cassette (GET -users/list.jsonl). Give each tape of a describe block its own name.',
  )
})

it('rejects two cassettes of one file that differ only in case, as macOS and Windows cannot tell them apart', () => {
  const registry = new TapeNameRegistry()
  registry.claim('test/a.test.ts', 'Refund', [], { testName: 'Refund', line: 3 })
  registry.claim('test/b.test.ts', 'refund', [], { testName: 'refund' })
  expect(() => registry.claim('test/a.test.ts', 'refund', [], { testName: 'refund', line: 8 })).toThrowError(
    '[agent-tape] Tape names "Refund" and "refund" in test/a.test.ts differ only in case: the tests "Refund" (line 3) and "refund" (line 8) would share one cassette on macOS and Windows, whose file systems ignore case. Give each tape of a describe block a name that differs in more than case.',
  )
  registry.claim('test/c.test.ts', 'x', ['Billing'], { testName: 'Billing > x' })
  expect(() => registry.claim('test/c.test.ts', 'x', ['billing'], { testName: 'billing > x' })).toThrow(
    /differ only in case/,
  )
})

it('claims a setup tape under its hook name: one per hook and describe block, and no test of the block by that name', () => {
  const registry = new TapeNameRegistry()
  expect(registry.claimSetup('a.test.ts', 'beforeAll', ['weather'])).toBe('weather/beforeAll')
  expect(registry.claimSetup('a.test.ts', 'afterAll', ['weather'])).toBe('weather/afterAll')
  expect(registry.claimSetup('a.test.ts', 'beforeAll', [])).toBe('beforeAll')
  expect(() => registry.claimSetup('a.test.ts', 'beforeAll', ['weather'])).toThrow(
    'Two beforeAll.tape hooks in describe "weather" of a.test.ts: a setup tape is the cassette weather/beforeAll.jsonl of its block: one beforeAll.tape per describe block',
  )
  expect(() =>
    registry.claim('a.test.ts', 'afterAll', ['weather'], { testName: 'weather > afterAll' }),
  ).toThrow(
    'the tests "weather > afterAll.tape" and "weather > afterAll" would share one cassette (weather/afterAll.jsonl)',
  )
})
