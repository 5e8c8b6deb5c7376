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
  ])
  expect(
    await findObsoleteCassettes([{ testFile: 'test/agent.test.ts', tapeNames: ['issue-412'] }], fs),
  ).toEqual(['test/__cassettes__/agent.test.ts/renamed.jsonl', 'test/__cassettes__/deleted.test.ts/a.jsonl'])
})

it('handles test files at the root and a custom folder', async () => {
  const fs = listing(['a.test.ts', 'rec/a.test.ts/x.jsonl', 'rec/gone.test.ts/y.jsonl'])
  expect(await findObsoleteCassettes([{ testFile: 'a.test.ts', tapeNames: ['x'] }], fs, 'rec')).toEqual([
    'rec/gone.test.ts/y.jsonl',
  ])
})
