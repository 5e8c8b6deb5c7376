import fc from 'fast-check'
import stableStringify from 'fast-json-stable-stringify'
import { describe, expect, it } from 'vitest'
import { computeKey } from './canonical-key.js'
import { asJsonData } from './json-walk.js'
import { KeyHasher, stableJsonData } from './key-hasher.js'

const message = fc.record(
  {
    role: fc.constantFrom('system', 'user', 'assistant', 'tool'),
    content: fc.oneof(fc.string(), fc.string({ unit: 'grapheme' }), fc.constant(null)),
    tool_call_id: fc.string(),
    name: fc.constant(undefined),
  },
  { requiredKeys: ['role', 'content'] },
)

describe('stableJsonData', () => {
  it('is exactly fast-json-stable-stringify for any JSON value', () => {
    fc.assert(
      fc.property(fc.jsonValue(), (value) => {
        expect(stableJsonData(value)).toBe(stableStringify(value))
      }),
      { numRuns: 500 },
    )
  })

  it('is exactly fast-json-stable-stringify for values with numeric keys, __proto__, undefined, dates and toJSON', () => {
    const odd = [
      JSON.parse('{"b":1,"__proto__":{"x":1},"a":2}'),
      { 10: 'ten', 9: 'nine', b: { 2: true, a: false } },
      { b: undefined, a: [undefined, () => 1, 2], c: Number.NaN },
      { when: new Date(0), z: { toJSON: () => 'custom' } },
      Object.assign(Object.create(null), { z: 1, a: 2 }),
    ]
    for (const value of odd) expect(stableJsonData(value)).toBe(stableStringify(value))
    fc.assert(
      fc.property(
        fc.anything({ withDate: true, withNullPrototype: true, withObjectString: false }),
        (value) => {
          expect(stableJsonData(value)).toBe(stableStringify(value))
        },
      ),
      { numRuns: 300 },
    )
  })

  it('does not reorder or copy the input', () => {
    const input = { role: 'user', content: 'hi', nested: { z: 1, a: 2 } }
    stableJsonData(input)
    expect(Object.keys(input)).toEqual(['role', 'content', 'nested'])
    expect(Object.keys(input.nested)).toEqual(['z', 'a'])
  })
})

describe('KeyHasher', () => {
  it('gives computeKey for every step of a growing conversation, across kinds and lanes', () => {
    fc.assert(
      fc.property(
        fc.array(message, { minLength: 1, maxLength: 30 }),
        fc.string({ unit: 'grapheme', minLength: 0, maxLength: 3 }),
        fc.nat(9000),
        (messages, emoji, padding) => {
          const hasher = new KeyHasher()
          const filler = `${'x'.repeat(padding)}${emoji}`
          for (let step = 1; step <= messages.length; step++) {
            const input = {
              api: 'openai-chat',
              body: {
                model: 'gpt-4o',
                messages: [{ role: 'system', content: filler }, ...messages.slice(0, step)],
              },
            }
            const lane = step % 3 === 0 ? 'researcher' : undefined
            const position = lane ? { step, lane } : { step }
            expect(hasher.key('llm', input, position)).toBe(computeKey('llm', input, position))
            const tool = { name: 'lookup', args: [{ n: step }] }
            expect(hasher.key('tool', tool, { step })).toBe(computeKey('tool', tool, { step }))
          }
        },
      ),
      { numRuns: 60 },
    )
  })

  it('gives computeKey when a long history changes anywhere, including inside a surrogate pair at a chunk edge', () => {
    const hasher = new KeyHasher()
    const history = Array.from({ length: 60 }, (_, i) => ({
      role: 'user',
      content: `${'é'.repeat(300)}😀 ${i}`,
    }))
    const inputs = [
      { messages: history },
      { messages: [...history, { role: 'assistant', content: 'ok' }] },
      { messages: history.map((m, i) => (i === 30 ? { ...m, content: `${m.content}!` } : m)) },
      { messages: history.slice(1) },
      { messages: history },
    ]
    for (let at = 8190; at < 8196; at++)
      inputs.push({ messages: [{ role: 'user', content: `${'a'.repeat(at)}😀😀` }] })
    inputs.forEach((input, i) => {
      expect(hasher.key('llm', input, { step: i + 1 })).toBe(computeKey('llm', input, { step: i + 1 }))
    })
  })
})

describe('asJsonData', () => {
  it('returns plain JSON data as it is, and a JSON copy of anything else', () => {
    const plain = { a: [1, 'two', null, true, { b: -1.5 }] }
    expect(asJsonData(plain)).toBe(plain)
    const dated = { at: new Date(0), gone: undefined }
    expect(asJsonData(dated)).toEqual({ at: '1970-01-01T00:00:00.000Z' })
    expect(asJsonData({ n: Number.NaN })).toEqual({ n: null })
    expect(asJsonData([undefined])).toEqual([null])
  })
})
