import { describe, expect, it } from 'vitest'
import { compactShared } from './compact-shared.js'
import type { PageData, SideData } from './page-data.js'
import { resolveShared, SharedValues } from './shared-values.js'

/** A page's data holding `values` as its cards' inputs, shared as the page shares them. */
function pageOf(values: unknown[]): { data: PageData; shared: SharedValues } {
  const shared = new SharedValues()
  const cards = values.map((value, i) => ({ seq: i + 1, whole: { in: shared.share(value) } }))
  const side = { role: 'recording', cards } as unknown as SideData
  return { data: { kind: 'run', title: 't', generator: 'g', sides: [side], shared: shared.table }, shared }
}

const inputs = (data: PageData) => data.sides[0]!.cards.map((c) => resolveShared(c.whole.in, data.shared))

describe('compactShared', () => {
  it('writes a value used once in place, and keeps what is used twice and what a list extends', () => {
    const message = (n: number) => ({
      role: 'user',
      content: `message number ${n} of the conversation, long enough`,
    })
    const history = Array.from({ length: 30 }, (_, i) => message(i))
    const response = (n: number) => ({
      id: `resp_${n}`,
      usage: { prompt_tokens: n, completion_tokens: 2 * n },
    })
    // A growing conversation (each request extends the last), and a response of its own each.
    const values = Array.from({ length: 30 }, (_, i) => ({
      body: { messages: history.slice(0, i + 1) },
      out: response(i),
      again: i === 3 ? response(2) : undefined,
    }))
    const { data } = pageOf(values)
    const compacted = compactShared(data)
    expect(inputs(compacted)).toEqual(inputs(data))
    expect(inputs(compacted)).toEqual(JSON.parse(JSON.stringify(values)))
    expect(compacted.shared.length).toBeLessThan(data.shared.length)
    expect(JSON.stringify(compacted).length).toBeLessThan(JSON.stringify(data).length)
    // The responses used once are in place; the one used twice is still shared.
    const json = JSON.stringify(compacted.sides)
    expect(json).toContain('"id":"resp_7"')
    expect(json).not.toContain('"id":"resp_2"')
  })

  it('keeps any value whole, however the table nests (random values)', () => {
    let seed = 11
    const random = (n: number) => {
      seed = (seed * 1103515245 + 12345) & 0x7fffffff
      return seed % n
    }
    const pool: unknown[] = []
    const value = (depth: number): unknown => {
      if (pool.length && random(3) === 0) return pool[random(pool.length)]
      const pick = depth > 3 ? random(3) : random(6)
      const made =
        pick === 0
          ? 'x'.repeat(random(200))
          : pick === 1
            ? random(1000)
            : pick === 2
              ? null
              : pick === 3
                ? Array.from({ length: random(6) }, () => value(depth + 1))
                : Object.fromEntries(Array.from({ length: random(5) }, (_, i) => [`k${i}`, value(depth + 1)]))
      pool.push(made)
      return made
    }
    const values = Array.from({ length: 200 }, () => value(0))
    const { data } = pageOf(values)
    expect(inputs(compactShared(data))).toEqual(inputs(data))
  })
})
