import fc from 'fast-check'
import { expect, it } from 'vitest'
import { WireHasher, wireFingerprint } from './wire-hasher.js'

const CHUNK = 16 * 1024

/** Bodies that share most of their bytes with the one before: appended, cut, edited in place. */
const bodies = fc
  .tuple(
    fc.uint8Array({ minLength: 0, maxLength: 3 * CHUNK }),
    fc.array(
      fc.tuple(
        fc.constantFrom('append', 'cut', 'edit', 'same'),
        fc.nat(),
        fc.uint8Array({ minLength: 1, maxLength: CHUNK + 7 }),
      ),
      { maxLength: 8 },
    ),
  )
  .map(([first, steps]) => {
    const out = [Buffer.from(first)]
    for (const [how, at, bytes] of steps) {
      const last = out[out.length - 1]!
      const i = last.length === 0 ? 0 : at % last.length
      if (how === 'append') out.push(Buffer.concat([last, bytes]))
      else if (how === 'cut') out.push(last.subarray(0, i))
      else if (how === 'edit')
        out.push(Buffer.concat([last.subarray(0, i), bytes, last.subarray(i + bytes.length)]))
      else out.push(Buffer.from(last))
    }
    return out
  })

it('digests a body as a fresh hasher does, whatever bodies came before in its lane', () => {
  fc.assert(
    fc.property(bodies, (sequence) => {
      const hasher = new WireHasher()
      for (const body of sequence) {
        expect(hasher.bodyDigest('', body)).toBe(new WireHasher().bodyDigest('', body))
      }
    }),
    { numRuns: 200 },
  )
})

it('tells bodies apart that differ in one byte, in length, or only past a shared chunk', () => {
  const hasher = new WireHasher()
  const a = Buffer.alloc(3 * CHUNK, 0x61)
  const b = Buffer.from(a)
  b[2 * CHUNK + 5] = 0x62
  const digests = new Set([
    hasher.bodyDigest('', a),
    hasher.bodyDigest('', b),
    hasher.bodyDigest('', a.subarray(0, 2 * CHUNK)),
    hasher.bodyDigest('', Buffer.concat([a, Buffer.alloc(CHUNK)])),
  ])
  expect(digests.size).toBe(4)
  // Lanes keep their own previous body.
  expect(hasher.bodyDigest('a', b)).toBe(new WireHasher().bodyDigest('', b))
  expect(hasher.bodyDigest('', undefined)).toBe('')
  expect(hasher.bodyDigest('', new Uint8Array(0))).toBe('')
})

it('fingerprints kind, position, head and body apart', () => {
  const base = wireFingerprint('llm', { step: 2 }, '["model"]', 'ab')
  expect(base).toMatch(/^[0-9a-f]{16}$/)
  const others = [
    wireFingerprint('http', { step: 2 }, '["model"]', 'ab'),
    wireFingerprint('llm', { step: 3 }, '["model"]', 'ab'),
    wireFingerprint('llm', { step: 2, lane: 'a' }, '["model"]', 'ab'),
    wireFingerprint('llm', { step: 2 }, '["other"]', 'ab'),
    wireFingerprint('llm', { step: 2 }, '["model"]', 'ac'),
  ]
  expect(new Set([base, ...others]).size).toBe(6)
})
