import { execFileSync } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { isCassetteCorruptError, parseCassette, serializeCassette } from '@agent-tape/core'
import { computeKey } from '@agent-tape/core/internal'
import { expect, it } from 'vitest'

// Every cassette committed to this repository reads, writes back byte for byte, and keeps the
// key of each decision: a change to the format or to keying shows here before it reaches a user.
const ROOT = join(import.meta.dirname, '..')
const committed = execFileSync('git', ['ls-files', '*.jsonl'], { cwd: ROOT, encoding: 'utf8' })
  .trim()
  .split('\n')
  .filter(Boolean)

it('finds the committed cassettes', () => {
  expect(committed.filter((path) => path.startsWith('examples/')).length).toBeGreaterThanOrEqual(4)
})

it.each(committed)('%s: same bytes when written again, same keys when computed again', (path) => {
  const text = readFileSync(join(ROOT, path), 'utf8')
  let cassette: ReturnType<typeof parseCassette>
  try {
    cassette = parseCassette(text, path)
  } catch (error) {
    // The damaged cassettes kept to test the errors stay damaged.
    expect(isCassetteCorruptError(error), String(error)).toBe(true)
    expect(path).toMatch(/^packages\/core\/test-fixtures\//)
    return
  }
  expect(serializeCassette(cassette)).toBe(text)
  // The format fixtures (and the golden cassettes, which have every field, and what is made of
  // them) are written by hand, with keys that only have the right shape.
  if (path.startsWith('packages/core/test-fixtures/') || path.startsWith('test/golden/')) return
  for (const d of cassette.decisions) {
    const position = d.lane === undefined ? { step: d.step } : { step: d.step, lane: d.lane }
    expect(computeKey(d.kind, d.in, position), `${path} #${d.seq}`).toBe(d.key)
  }
})
