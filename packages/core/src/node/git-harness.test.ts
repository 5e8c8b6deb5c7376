import { execFileSync } from 'node:child_process'
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { createMemoryStore } from '../cassette-store.js'
import { openTape } from '../open-tape.js'
import { createGitHarness } from './git-harness.js'

function gitRepo() {
  const dir = mkdtempSync(join(tmpdir(), 'agent-tape-git-'))
  const git = (...args: string[]) =>
    execFileSync('git', args, {
      cwd: dir,
      env: {
        ...process.env,
        GIT_AUTHOR_NAME: 't',
        GIT_AUTHOR_EMAIL: 't@t',
        GIT_COMMITTER_NAME: 't',
        GIT_COMMITTER_EMAIL: 't@t',
      },
    })
  git('init', '-q')
  mkdirSync(join(dir, 'src/agent'), { recursive: true })
  writeFileSync(join(dir, 'src/agent/loop.ts'), 'export const loop = 1\n')
  writeFileSync(join(dir, 'README.md'), 'readme\n')
  git('add', '.')
  git('commit', '-qm', 'init')
  return { dir, git }
}

describe('createGitHarness', () => {
  it('fingerprints the configured paths and flags uncommitted changes under them only', async () => {
    const { dir } = gitRepo()
    const harness = createGitHarness(dir, { cacheMs: 0 })
    const clean = await harness.identify(['src/agent'])
    expect(clean).toMatchObject({ git: true, paths: ['src/agent'], dirty: false })
    expect(clean.git && clean.commit).toMatch(/^[0-9a-f]{40}$/)
    writeFileSync(join(dir, 'README.md'), 'changed elsewhere\n')
    expect(await harness.identify(['src/agent'])).toEqual(clean)
    writeFileSync(join(dir, 'src/agent/loop.ts'), 'export const loop = 2\n')
    const dirty = await harness.identify(['src/agent'])
    expect(dirty).toMatchObject({ git: true, dirty: true })
    expect(dirty.git && clean.git && dirty.tree !== clean.tree).toBe(true)
  })

  it('reads paths relative to its working directory, as in a monorepo package', async () => {
    const { dir, git } = gitRepo()
    mkdirSync(join(dir, 'examples/agent/src'), { recursive: true })
    writeFileSync(join(dir, 'examples/agent/src/loop.ts'), 'export const v = 1\n')
    git('add', '.')
    git('commit', '-qm', 'example')
    const harness = createGitHarness(join(dir, 'examples/agent'), { cacheMs: 0 })
    const committed = await harness.identify(['src'])
    expect(committed).toMatchObject({ paths: ['src'], dirty: false })
    expect(committed.git && committed.tree).not.toBe(
      ((await harness.identify(['missing'])) as { tree: string }).tree,
    )
    git('commit', '-qm', 'empty', '--allow-empty')
    expect(await harness.identify(['src'])).toMatchObject({ tree: committed.git && committed.tree })
    writeFileSync(join(dir, 'examples/agent/src/loop.ts'), 'export const v = 2\n')
    expect(await harness.identify(['src'])).toMatchObject({ dirty: true })
    git('commit', '-qam', 'change the loop')
    const changed = await harness.identify(['src'])
    expect(changed).toMatchObject({ dirty: false })
    expect(changed.git && changed.tree).not.toBe(committed.git && committed.tree)
  })

  it('fingerprints content: the same code gives the same tree committed or not', async () => {
    const { dir, git } = gitRepo()
    const harness = createGitHarness(dir, { cacheMs: 0 })
    writeFileSync(join(dir, 'src/agent/new-step.ts'), 'export const step = 1\n')
    const uncommitted = await harness.identify(['src/agent'])
    git('add', '.')
    git('commit', '-qm', 'add step')
    const committed = await harness.identify(['src/agent'])
    expect(uncommitted).toMatchObject({ dirty: true })
    expect(committed).toMatchObject({ dirty: false, tree: uncommitted.git && uncommitted.tree })
  })

  it('reuses a reading for cacheMs, across the providers of one directory', async () => {
    const { dir } = gitRepo()
    const first = await createGitHarness(dir, { cacheMs: 60_000 }).identify(['src/agent'])
    writeFileSync(join(dir, 'src/agent/loop.ts'), 'export const loop = 9\n')
    expect(await createGitHarness(dir, { cacheMs: 60_000 }).identify(['./src/agent/'])).toBe(first)
    expect(await createGitHarness(dir, { cacheMs: 0 }).identify(['src/agent'])).not.toEqual(first)
  })

  it('says so outside a git checkout instead of failing', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'agent-tape-nogit-'))
    expect(await createGitHarness(dir, { cacheMs: 0 }).identify(['src'])).toEqual({
      git: false,
      reason: `${dir} is not inside a git checkout`,
    })
  })

  it('a replay under a changed harness warns by default and fails when strict', async () => {
    const { dir } = gitRepo()
    const store = createMemoryStore()
    const open = (mode: string, strict: boolean) =>
      openTape({
        id: 't',
        cassettePath: 'c.jsonl',
        store,
        mode,
        env: {},
        rerecordCommand: 'rerecord',
        harness: { provider: createGitHarness(dir, { cacheMs: 0 }), paths: ['src/agent'], strict },
      })
    const rec = await open('auto', false)
    await rec.call('llm', { q: 1 }, () => 'a')
    await rec.finish()
    writeFileSync(join(dir, 'src/agent/loop.ts'), 'export const loop = 3\n')
    const lenient = await open('replay', false)
    await lenient.call('llm', { q: 1 }, () => 'x')
    const state = await lenient.finish()
    expect(state.status).toBe('clean')
    expect(state.warnings).toHaveLength(1)
    expect(state.warnings[0]).toMatch(
      /^\[agent-tape\] Harness mismatch: this cassette was recorded under a different agent harness: the code under src\/agent differs from the recording \(recorded at commit [0-9a-f]{12}, now [0-9a-f]{12} \(the working tree has uncommitted changes there\)\)\. Re-record this test if the recording no longer describes the code path: rerecord\./,
    )
    const strict = await open('replay', true)
    await strict.call('llm', { q: 1 }, () => 'x')
    expect((await strict.finish()).status).toBe('diverged')
    expect(strict.failure()?.code).toBe('ERR_TAPE_HARNESS')
  })
})
