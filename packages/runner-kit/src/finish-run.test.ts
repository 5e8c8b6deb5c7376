import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, expect, it } from 'vitest'
import { finishRun, obsoleteFailure, type ProjectRun } from './finish-run.js'

const roots: string[] = []
afterEach(() => {
  for (const root of roots.splice(0)) rmSync(root, { recursive: true, force: true })
})

/** A project with two test files that each use one cassette, and the cassette of a deleted test file. */
function project(): string {
  const root = mkdtempSync(join(tmpdir(), 'agent-tape-finish-run-'))
  roots.push(root)
  for (const file of ['a', 'b']) {
    writeFileSync(join(root, `${file}.test.ts`), '')
    mkdirSync(join(root, '__cassettes__', `${file}.test.ts`), { recursive: true })
    writeFileSync(join(root, '__cassettes__', `${file}.test.ts`, 'used.jsonl'), '')
  }
  mkdirSync(join(root, '__cassettes__', 'gone.test.ts'))
  writeFileSync(join(root, '__cassettes__', 'gone.test.ts', 'old.jsonl'), '')
  return root
}

function fileRun(root: string, file: string, config: ProjectRun['config']): ProjectRun {
  return { root, config, entries: [], collected: [{ testFile: `${file}.test.ts`, tapes: [['used']] }] }
}

it('joins the runs of one project (a Jest reporter passes one per test file), and fails on obsolete cassettes when any part asks', async () => {
  const root = project()
  let printed = ''
  const summary = await finishRun(
    [fileRun(root, 'a', {}), fileRun(root, 'b', { cassetteDir: '__cassettes__', failOnObsolete: true })],
    { prune: false, print: (text) => (printed += text), env: {} },
  )
  expect(summary?.obsolete).toEqual(['__cassettes__/gone.test.ts/old.jsonl'])
  expect(summary?.failOnObsolete).toBe(true)
  expect(obsoleteFailure(summary)).toContain('The run found 1 obsolete cassette')
  expect(printed).toContain('__cassettes__/gone.test.ts/old.jsonl')
})

it('fails on obsolete cassettes when the run is asked to, though no config is', async () => {
  const root = project()
  const summary = await finishRun([fileRun(root, 'a', {})], {
    prune: false,
    failOnObsolete: true,
    print: () => {},
    env: {},
  })
  expect(summary?.failOnObsolete).toBe(true)
  const listed = await finishRun([fileRun(root, 'a', { failOnObsolete: false })], {
    prune: false,
    print: () => {},
    env: {},
  })
  expect(listed?.obsolete).toEqual(['__cassettes__/gone.test.ts/old.jsonl'])
  expect(listed).not.toHaveProperty('failOnObsolete')
})

it('reads each part with its own cassette folder, the default when its config leaves it out', async () => {
  const root = project()
  mkdirSync(join(root, 'tapes', 'a.test.ts'), { recursive: true })
  writeFileSync(join(root, 'tapes', 'a.test.ts', 'stale.jsonl'), '')
  const summary = await finishRun(
    [fileRun(root, 'a', { cassetteDir: 'tapes' }), fileRun(root, 'b', {}), fileRun(root, 'a', {})],
    { prune: false, print: () => {}, env: {} },
  )
  expect(summary?.obsolete).toEqual(['tapes/a.test.ts/stale.jsonl', '__cassettes__/gone.test.ts/old.jsonl'])
})
