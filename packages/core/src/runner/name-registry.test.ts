import { expect, it } from 'vitest'
import { TapeNameRegistry } from './name-registry.js'

it('rejects a second tape with the same name in one file, naming both tests', () => {
  const registry = new TapeNameRegistry()
  registry.claim('test/a.test.ts', 'issue-412', { testName: 'issue-412', line: 3 })
  registry.claim('test/b.test.ts', 'issue-412', { testName: 'issue-412' })
  expect(() =>
    registry.claim('test/a.test.ts', 'issue-412', { testName: 'agent > issue-412', line: 9 }),
  ).toThrowError(
    '[agent-tape] Duplicate tape name "issue-412" in test/a.test.ts: the tests "issue-412" (line 3) and "agent > issue-412" (line 9) would share one cassette. Give each tape in a file its own name.',
  )
  expect(registry.names('test/a.test.ts')).toEqual(['issue-412'])
})

it('rejects two tape names in one file that differ only in case, as macOS and Windows cannot tell them apart', () => {
  const registry = new TapeNameRegistry()
  registry.claim('test/a.test.ts', 'Refund', { testName: 'Refund', line: 3 })
  registry.claim('test/b.test.ts', 'refund', { testName: 'refund' })
  expect(() =>
    registry.claim('test/a.test.ts', 'refund', { testName: 'billing > refund', line: 8 }),
  ).toThrowError(
    '[agent-tape] Tape names "Refund" and "refund" in test/a.test.ts differ only in case: the tests "Refund" (line 3) and "billing > refund" (line 8) would share one cassette on macOS and Windows, whose file systems ignore case. Give each tape in a file a name that differs in more than case.',
  )
  expect(registry.names('test/a.test.ts')).toEqual(['Refund'])
})
