import { mkdirSync, mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { expect, it } from 'vitest'
import { openerFor } from './open-file.js'
import { defaultViewPath } from './view-path.js'

it('names a page after its cassette, under the project cache, with .run or .diff for the other views', () => {
  const cwd = mkdtempSync(join(tmpdir(), 'agent-tape-view-path-'))
  mkdirSync(join(cwd, 'node_modules'))
  const views = join(cwd, 'node_modules/.cache/agent-tape/views')
  const cassette = 'test/__cassettes__/a.test.ts/x.jsonl'
  expect(defaultViewPath(cwd, {}, cassette)).toBe(join(views, 'test/__cassettes__/a.test.ts/x.html'))
  expect(defaultViewPath(cwd, {}, cassette, 'run')).toBe(
    join(views, 'test/__cassettes__/a.test.ts/x.run.html'),
  )
  expect(defaultViewPath(cwd, {}, '/elsewhere/before.jsonl', 'diff')).toBe(join(views, 'before.diff.html'))
  expect(defaultViewPath(cwd, { AGENT_TAPE_CACHE_DIR: 'cache' }, cassette)).toBe(
    join(cwd, 'cache/views/test/__cassettes__/a.test.ts/x.html'),
  )
})

it("opens a file with each platform's opener", () => {
  expect(openerFor('darwin', '/p.html')).toEqual(['open', ['/p.html']])
  expect(openerFor('linux', '/p.html')).toEqual(['xdg-open', ['/p.html']])
  expect(openerFor('win32', 'C:\\p.html')).toEqual(['cmd', ['/c', 'start', '""', '"C:\\p.html"']])
})
