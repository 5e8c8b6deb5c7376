import { expect, it } from 'vitest'
import { createRunId, isRunFileName, runFileName, runStartOf } from './run-file.js'

it('names a run by its start time, its name made safe for any file system, and its id', () => {
  const at = new Date('2026-12-01T12:26:02.123Z')
  expect(runFileName(at, 'triage', 'k3j9x2p1qmzt')).toBe('2026-12-01T12-26-02.123Z_triage_k3j9x2p1qmzt.jsonl')
  expect(runFileName(at, 'POST /api/triage?x=1', 'k3j9x2p1qmzt')).toBe(
    '2026-12-01T12-26-02.123Z_POST-api-triage-x-1_k3j9x2p1qmzt.jsonl',
  )
  expect(runFileName(at, '../../etc/passwd', 'k3j9x2p1qmzt')).toBe(
    '2026-12-01T12-26-02.123Z_etc-passwd_k3j9x2p1qmzt.jsonl',
  )
  expect(runFileName(at, '___', 'k3j9x2p1qmzt')).toBe('2026-12-01T12-26-02.123Z_run_k3j9x2p1qmzt.jsonl')
  expect(runFileName(at, 'x'.repeat(200), 'k3j9x2p1qmzt')).toHaveLength(24 + 1 + 60 + 1 + 12 + 6)
  expect(runStartOf(runFileName(at, 'triage', 'k3j9x2p1qmzt'))).toBe(at.getTime())
})

it('tells its own files from anyone else’s, which retention never removes', () => {
  expect(isRunFileName('2026-12-01T12-26-02.123Z_triage_k3j9x2p1qmzt.jsonl')).toBe(true)
  for (const name of [
    'notes.jsonl',
    '2026-12-01_triage.jsonl',
    '2026-12-01T12-26-02.123Z_triage_K3J9X2P1QMZT.jsonl',
  ]) {
    expect(isRunFileName(name)).toBe(false)
  }
})

it('makes run ids of 12 base-32 characters without i, l, o or u, all different', () => {
  const ids = new Set(Array.from({ length: 10_000 }, createRunId))
  expect(ids.size).toBe(10_000)
  for (const id of ids) expect(id).toMatch(/^[0-9a-hjkmnp-tv-z]{12}$/)
})
