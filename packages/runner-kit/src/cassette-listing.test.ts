import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { readdir, stat } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, expect, it } from 'vitest'
import { createCassetteListing } from './cassette-listing.js'

let root: string | undefined

function project(files: string[]): string {
  root = mkdtempSync(join(tmpdir(), 'agent-tape-listing-'))
  for (const file of files) {
    mkdirSync(join(root, file, '..'), { recursive: true })
    writeFileSync(join(root, file), '')
  }
  return root
}

afterEach(() => {
  if (root) rmSync(root, { recursive: true, force: true })
  root = undefined
})

it('lists the entries of a folder below the root, telling folders from files', async () => {
  const listing = createCassetteListing(
    project(['test/__cassettes__/a.test.ts/refund.jsonl', 'test/__cassettes__/notes.txt']),
    { readdir, stat },
  )
  const entries = await listing.list('test/__cassettes__')
  expect(entries.sort((a, b) => a.name.localeCompare(b.name))).toEqual([
    { name: 'a.test.ts', isDirectory: true },
    { name: 'notes.txt', isDirectory: false },
  ])
})

it('lists a missing folder as empty, and tells whether a path exists', async () => {
  const listing = createCassetteListing(project(['test/a.test.ts']), { readdir, stat })
  expect(await listing.list('test/__cassettes__')).toEqual([])
  expect(await listing.exists('test/a.test.ts')).toBe(true)
  expect(await listing.exists('test/b.test.ts')).toBe(false)
})
