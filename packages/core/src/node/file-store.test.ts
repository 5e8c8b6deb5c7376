import { spawn } from 'node:child_process'
import { existsSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { parseCassette } from '../cassette-format.js'
import { createFileStore, TEMP_PREFIX } from './file-store.js'

const require = createRequire(import.meta.url)

describe('createFileStore', () => {
  it('reads null for a missing file and round-trips text, creating directories', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'agent-tape-'))
    const store = createFileStore(dir)
    expect(await store.read('a/b/c.jsonl')).toBeNull()
    await store.write('a/b/c.jsonl', 'one\n')
    await store.write('a/b/c.jsonl', 'two\n')
    expect(await store.read('a/b/c.jsonl')).toBe('two\n')
    expect(readdirSync(join(dir, 'a/b'))).toEqual(['c.jsonl'])
  })

  it('keeps the previous cassette intact when the recording process is killed mid-write', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'agent-tape-'))
    const cassette = join(dir, 'issue-412.jsonl')
    const previous =
      '{"agentTape":1,"keyScheme":1,"test":"issue-412","recordedAt":"2026-01-01T00:00:00.000Z"}\n' +
      '{"seq":1,"key":"tool:0123456789abcdef","kind":"tool","step":0,"ms":1,"in":{"name":"t","args":[]},"out":"old"}\n'
    writeFileSync(cassette, previous)
    // The child records a run whose cassette is large enough (~150 MB) that writing and
    // flushing it takes far longer than it takes the parent to see the temp file and kill it.
    const script = join(dir, 'record.cjs')
    writeFileSync(
      script,
      `const { openTape } = require(${JSON.stringify(require.resolve('@agent-tape/core'))})
const { createFileStore } = require(${JSON.stringify(require.resolve('@agent-tape/core/node'))})
;(async () => {
  const tape = await openTape({ id: 'issue-412', cassettePath: ${JSON.stringify(cassette)}, store: createFileStore(), mode: 'update', env: {} })
  const page = 'x'.repeat(100_000)
  for (let i = 0; i < 1500; i++) await tape.tool('fetch_page', { i }, () => page)
  process.send('writing')
  await tape.finish()
  process.send('done')
})()`,
    )
    const child = spawn(process.execPath, [script], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] })
    const messages: string[] = []
    child.on('message', (m) => messages.push(String(m)))
    const exited = new Promise<NodeJS.Signals | null>((resolve) =>
      child.on('exit', (_code, signal) => resolve(signal)),
    )
    const tempFiles = () => readdirSync(dir).filter((f) => f.startsWith(TEMP_PREFIX))
    const deadline = Date.now() + 60_000
    while (tempFiles().length === 0 && Date.now() < deadline && !messages.includes('done')) {
      await new Promise((r) => setTimeout(r, 2))
    }
    child.kill('SIGKILL')
    expect(await exited).toBe('SIGKILL')
    expect(messages).toEqual(['writing'])
    expect(tempFiles()).toHaveLength(1)
    expect(readFileSync(cassette, 'utf8')).toBe(previous)
    expect(parseCassette(readFileSync(cassette, 'utf8'), cassette).decisions[0]?.out).toBe('old')
    expect(existsSync(cassette)).toBe(true)
    // The next write to the folder removes what the killed write left behind.
    await createFileStore(dir).write('other.jsonl', 'x\n')
    expect(tempFiles()).toEqual([])
  })

  it('leaves the temporary file of a write still running in another process alone', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'agent-tape-'))
    const sleeper = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 30000)'])
    try {
      const running = `${TEMP_PREFIX}a.jsonl-${sleeper.pid}-0123abcd`
      const dead = `${TEMP_PREFIX}b.jsonl-${2 ** 22 + 12345}-89abcdef`
      writeFileSync(join(dir, running), 'partial')
      writeFileSync(join(dir, dead), 'partial')
      await createFileStore(dir).write('c.jsonl', 'x\n')
      expect(readdirSync(dir).sort()).toEqual([running, 'c.jsonl'].sort())
    } finally {
      sleeper.kill()
    }
  })
})
