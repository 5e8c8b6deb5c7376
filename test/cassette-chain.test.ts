import { execFile } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { promisify } from 'node:util'
import { afterAll, expect, it } from 'vitest'

// A run that appends one message a step writes a chain of one-message patches (format 2). What
// reads the cassette back (a replay and its summary, the secret scan, `agent-tape verify`, the
// last input) must work in proportion to the file: four times the messages, four times the work
// and at most a few times the file in memory, not sixteen times (every input held whole is the
// square of the run: at 6,000 messages, 18 million array slots). Work is counted in a process of
// its own, whose heap is capped so that a history held whole per decision runs out of memory.
const run = promisify(execFile)
const CHILD = join(import.meta.dirname, 'support/patch-chain-child.mjs')
const dir = mkdtempSync(join(tmpdir(), 'agent-tape-chain-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

interface Work {
  bytes: number
  work: Record<string, { copiedSlots: number } & Record<string, number | boolean>>
}

async function chain(n: number): Promise<Work> {
  const { stdout } = await run(process.execPath, ['--max-old-space-size=64', CHILD, String(n), dir], {
    encoding: 'utf8',
  })
  return JSON.parse(stdout) as Work
}

it('reads a chain of 6,000 appended messages with work in proportion to the file, in a 64 MB heap', async () => {
  const [small, large] = await Promise.all([chain(1_500), chain(6_000)])
  expect(large.work.replay).toMatchObject({ unused: 6_000, labelled: 6_000 })
  expect(large.work.scan).toMatchObject({ findings: 0 })
  expect(large.work.verify).toMatchObject({ code: 0, ok: true })
  expect(large.work.last).toMatchObject({ messages: 6_001 })
  for (const step of ['replay', 'scan', 'verify', 'last']) {
    const ratio = large.work[step]!.copiedSlots / Math.max(1, small.work[step]!.copiedSlots)
    // Four times the messages: about four times the copies (each chain copies its array once).
    expect(
      ratio,
      `${step}: ${small.work[step]!.copiedSlots} → ${large.work[step]!.copiedSlots} slots`,
    ).toBeLessThan(6)
    expect(large.work[step]!.copiedSlots, step).toBeLessThan(10 * 6_000)
  }
  // The scanner reads each patch once: about the file's characters, not every history again.
  expect(large.work.scan!.scannedChars).toBeLessThan(large.bytes)
}, 60_000)
