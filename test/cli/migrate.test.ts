import { cpSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { parseCassette } from '@agent-tape/core'
import { expect, it } from 'vitest'
import { runCli } from './support/cli.js'

const REPO = join(import.meta.dirname, '..', '..')
const FORMAT_1 = join(REPO, 'test/fixtures/format-1/support-agent-issue-412.jsonl')
const OLD = 'test/__cassettes__/agent.test.ts/issue-412.jsonl'
const CURRENT = 'test/__cassettes__/trip.test.ts/trip planner/stream.jsonl'
const DAMAGED = 'test/__cassettes__/agent.test.ts/truncated.jsonl'

function project() {
  const root = mkdtempSync(join(tmpdir(), 'agent-tape-cli-migrate-'))
  const put = (path: string, text: string) => {
    mkdirSync(dirname(join(root, path)), { recursive: true })
    writeFileSync(join(root, path), text)
  }
  put(OLD, readFileSync(FORMAT_1, 'utf8'))
  mkdirSync(dirname(join(root, CURRENT)), { recursive: true })
  cpSync(join(REPO, 'examples/vercel-agent', CURRENT), join(root, CURRENT))
  const old = readFileSync(FORMAT_1, 'utf8')
  put(DAMAGED, old.slice(0, old.indexOf('\n', old.indexOf('\n') + 1) + 40))
  const read = (path: string) => readFileSync(join(root, path), 'utf8')
  return { root, put, read }
}

const bytes = (text: string) => Buffer.byteLength(text).toLocaleString('en-US')

it('rewrites a format-1 cassette in format 2 that reads back as the same cassette, and leaves the others', async () => {
  const { root, read } = project()
  const before = { old: read(OLD), current: read(CURRENT), damaged: read(DAMAGED) }
  const result = await runCli(['migrate'], root)
  const after = read(OLD)
  expect(result).toEqual({
    code: 1,
    stderr: '',
    stdout: `migrated       ${OLD}  format 1 → 2: ${bytes(before.old)} bytes → ${bytes(after)} bytes
FAIL           ${DAMAGED}  line 3: the line is truncated (the file ends in the middle of a JSON line, as when a write is interrupted). Restore it from version control (git checkout -- ${DAMAGED}), or delete it and re-record the test.
up to date     ${CURRENT}  format 2, ${bytes(before.current)} bytes

3 cassettes: 1 migrated (${bytes(before.old)} bytes → ${bytes(after)} bytes), 1 up to date, 1 failed.
`,
  })
  expect(Buffer.byteLength(after)).toBeLessThan(Buffer.byteLength(before.old))
  const [was, is] = [parseCassette(before.old, OLD), parseCassette(after, OLD)]
  expect(is.header).toEqual({ ...was.header, agentTape: 2 })
  expect(is.decisions).toEqual(was.decisions)
  expect(after).toContain('"patch":[')
  expect(read(CURRENT)).toBe(before.current)
  expect(read(DAMAGED)).toBe(before.damaged)
  // Migrated, it is up to date.
  expect(await runCli(['migrate', '--check', OLD, CURRENT], root)).toMatchObject({ code: 0 })
})

it('--check writes nothing and exits 1 when a cassette would be rewritten', async () => {
  const { root, read } = project()
  const before = read(OLD)
  const result = await runCli(
    ['migrate', '--check', '--quiet', 'test/__cassettes__/agent.test.ts/issue-412.jsonl'],
    root,
  )
  expect(result.code).toBe(1)
  expect(result.stdout).toMatch(
    new RegExp(
      `^would migrate  ${OLD}  format 1 → 2: ${bytes(before)} bytes → [\\d,]+ bytes\\n\\n1 cassette: 1 to migrate \\(.+\\), 0 up to date; nothing was written\\.\\n$`,
    ),
  )
  expect(read(OLD)).toBe(before)
  expect(await runCli(['migrate', '--check', CURRENT], root)).toMatchObject({ code: 0 })
  const json = await runCli(['migrate', '--check', '--json', OLD, CURRENT], root)
  expect(json.code).toBe(1)
  expect(JSON.parse(json.stdout)).toEqual({
    check: true,
    format: 2,
    cassettes: [
      {
        path: OLD,
        status: 'migrated',
        from: 1,
        bytesBefore: Buffer.byteLength(before),
        bytesAfter: expect.any(Number),
      },
      { path: CURRENT, status: 'current', bytes: Buffer.byteLength(read(CURRENT)) },
    ],
  })
  expect(read(OLD)).toBe(before)
})

it('refuses to rewrite a cassette that would not read back the same, and leaves it as it was', async () => {
  const { root, put, read } = project()
  const lines = read(OLD).split('\n')
  // A member this version does not know is dropped on writing: migrating would lose it.
  lines[3] = lines[3]!.replace('"ms":', '"note":"kept by hand","ms":')
  put(OLD, lines.join('\n'))
  const before = read(OLD)
  const result = await runCli(['migrate', OLD], root)
  expect(result.code).toBe(1)
  expect(result.stdout).toContain(
    `FAIL           ${OLD}  decision #3 would not read back the same in format 2 (a field this version does not know?); the file was left as it was`,
  )
  expect(read(OLD)).toBe(before)
})

it('says so when a path does not exist', async () => {
  const { root } = project()
  const result = await runCli(['migrate', 'nowhere'], root)
  expect(result.code).toBe(2)
  expect(result.stderr).toContain('nowhere does not exist')
})
