import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { isSecretLeakError, openTape, type Tape } from '@agent-tape/core'
import { createFileStore } from '@agent-tape/core/node'
import { expect } from 'vitest'
import { leakedFragments, type SecretSample, shownBeyondPreview } from './secret-corpus.js'

/** What every cassette file holds before a test records over it. */
export const PREVIOUS = `${JSON.stringify({ agentTape: 1, keyScheme: 1, test: 'previous', recordedAt: '2026-01-01T00:00:00.000Z' })}\n`

/** A folder of real cassette files, and the checks the secret corpus makes on them. */
export function createSecretChecks(name: string) {
  const dir = mkdtempSync(join(tmpdir(), `agent-tape-${name}-`))
  const store = createFileStore(dir)
  return {
    dir,
    store,
    /** Opens a recording tape over a cassette file that already holds a previous recording. */
    async recording(id: string, env: Record<string, string> = {}): Promise<{ tape: Tape; file: string }> {
      const file = join(dir, `${id}.jsonl`)
      writeFileSync(file, PREVIOUS)
      const tape = await openTape({ id, cassettePath: `${id}.jsonl`, store, mode: 'update', env })
      return { tape, file }
    },
    /** The write was refused: the message names decision and field, shows at most 4 characters, and the file is as it was. */
    async expectRefused(tape: Tape, file: string, sample: SecretSample, where: string): Promise<void> {
      const error = await tape.finish().then(
        () => undefined,
        (e: unknown) => e,
      )
      expect(isSecretLeakError(error), `${sample.id} at ${where}: the write was not refused`).toBe(true)
      const message = (error as Error).message
      expect(message).toContain(where)
      expect(shownBeyondPreview(message, sample)).toEqual([])
      expect(readFileSync(file, 'utf8')).toBe(PREVIOUS)
    },
    /** The cassette was written, and holds no 16-character fragment of the secret. */
    expectClean(file: string, sample: SecretSample): string {
      const text = readFileSync(file, 'utf8')
      expect(text).not.toBe(PREVIOUS)
      expect(leakedFragments(text, sample)).toEqual([])
      return text
    },
  }
}
