import { createMemoryStore } from '@agent-tape/core'
import { expect, it } from 'vitest'
import { chooseCassette } from './legacy-cassette.js'

const FORMER = 'test/__cassettes__/a.test.ts/refund.jsonl'
const NEW = 'test/__cassettes__/a.test.ts/billing/refund.jsonl'

function choose(
  files: Record<string, string>,
  extra: { uniqueName?: boolean; mode?: 'auto' | 'update' | 'replay' } = {},
) {
  return chooseCassette({
    store: createMemoryStore(files),
    testFile: 'test/a.test.ts',
    cassetteDir: '__cassettes__',
    name: 'refund',
    path: NEW,
    uniqueName: extra.uniqueName ?? true,
    mode: extra.mode ?? 'auto',
  })
}

it('reads the cassette a tape in a describe had before its describe path named it, until the new one exists', async () => {
  expect(await choose({ [FORMER]: 'x' })).toEqual({ path: FORMER, movesTo: NEW })
  expect(await choose({ [FORMER]: 'x' }, { mode: 'replay' })).toEqual({ path: FORMER, movesTo: NEW })
  expect(await choose({ [FORMER]: 'x', [NEW]: 'y' })).toEqual({ path: NEW })
  expect(await choose({})).toEqual({ path: NEW })
})

it('never reads the former path for a name two tapes of the file share, nor when re-recording', async () => {
  expect(await choose({ [FORMER]: 'x' }, { uniqueName: false })).toEqual({ path: NEW })
  expect(await choose({ [FORMER]: 'x' }, { mode: 'update' })).toEqual({ path: NEW })
})

it('has nothing to choose for a tape outside describe blocks', async () => {
  const store = createMemoryStore({ [FORMER]: 'x' })
  const input = {
    store,
    testFile: 'test/a.test.ts',
    cassetteDir: '__cassettes__',
    name: 'refund',
    uniqueName: true,
  }
  expect(await chooseCassette({ ...input, path: FORMER, mode: 'auto' })).toEqual({ path: FORMER })
})
