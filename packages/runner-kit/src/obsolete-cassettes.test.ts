import { expect, it } from 'vitest'
import { type CassetteListing, findObsoleteCassettes } from './obsolete-cassettes.js'

function listing(paths: string[]): CassetteListing {
  return {
    async list(dir) {
      const names = new Map<string, boolean>()
      for (const p of paths) {
        if (!p.startsWith(`${dir}/`)) continue
        const rest = p.slice(dir.length + 1).split('/')
        names.set(rest[0]!, rest.length > 1)
      }
      return [...names].map(([name, isDirectory]) => ({ name, isDirectory }))
    },
    async exists(path) {
      return paths.includes(path)
    },
  }
}

it('finds cassettes whose name no test defines and those of deleted test files', async () => {
  const fs = listing([
    'test/agent.test.ts',
    'test/other.test.ts',
    'test/__cassettes__/agent.test.ts/issue-412.jsonl',
    'test/__cassettes__/agent.test.ts/renamed.jsonl',
    'test/__cassettes__/agent.test.ts/notes.txt',
    'test/__cassettes__/other.test.ts/kept.jsonl',
    'test/__cassettes__/deleted.test.ts/a.jsonl',
    'test/__cassettes__/deleted.test.ts/group/b.jsonl',
  ])
  expect(
    await findObsoleteCassettes([{ testFile: 'test/agent.test.ts', tapes: [['issue-412']] }], fs),
  ).toEqual([
    'test/__cassettes__/agent.test.ts/renamed.jsonl',
    'test/__cassettes__/deleted.test.ts/a.jsonl',
    'test/__cassettes__/deleted.test.ts/group/b.jsonl',
  ])
})

it('judges cassettes by describe path and name, in the folders of describe blocks too', async () => {
  const fs = listing([
    'test/a.test.ts',
    'test/__cassettes__/a.test.ts/checkout/happy.jsonl',
    'test/__cassettes__/a.test.ts/refund/happy.jsonl',
    'test/__cassettes__/a.test.ts/refund/gone.jsonl',
    'test/__cassettes__/a.test.ts/removed-describe/happy.jsonl',
    'test/__cassettes__/a.test.ts/happy.jsonl',
  ])
  const tapes = [
    ['checkout', 'happy'],
    ['refund', 'happy'],
  ]
  // Two tapes are named "happy": neither reads the former happy.jsonl.
  expect(await findObsoleteCassettes([{ testFile: 'test/a.test.ts', tapes }], fs)).toEqual([
    'test/__cassettes__/a.test.ts/happy.jsonl',
    'test/__cassettes__/a.test.ts/refund/gone.jsonl',
    'test/__cassettes__/a.test.ts/removed-describe/happy.jsonl',
  ])
})

it('keeps the cassette at a tape’s former path while the tape reads it, and lists it once the new one exists', async () => {
  const former = 'test/__cassettes__/a.test.ts/refund.jsonl'
  const tapes = [['billing', 'refund']]
  const before = listing(['test/a.test.ts', former])
  expect(await findObsoleteCassettes([{ testFile: 'test/a.test.ts', tapes }], before)).toEqual([])
  const after = listing(['test/a.test.ts', former, 'test/__cassettes__/a.test.ts/billing/refund.jsonl'])
  expect(await findObsoleteCassettes([{ testFile: 'test/a.test.ts', tapes }], after)).toEqual([former])
})

it('handles test files at the root and a custom folder', async () => {
  const fs = listing(['a.test.ts', 'rec/a.test.ts/x.jsonl', 'rec/gone.test.ts/y.jsonl'])
  expect(await findObsoleteCassettes([{ testFile: 'a.test.ts', tapes: [['x']] }], fs, 'rec')).toEqual([
    'rec/gone.test.ts/y.jsonl',
  ])
})
