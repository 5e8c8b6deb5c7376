import { describe, expect, it } from 'vitest'
import { diffJson, diffStrings, formatChanges } from './json-diff.js'

describe('diffJson', () => {
  it('addresses each changed leaf by its path', () => {
    const before = {
      model: 'gpt-4o',
      messages: [{ role: 'user', content: 'hi' }],
      'x-key': 1,
      temperature: 0,
    }
    const after = {
      model: 'gpt-4o',
      messages: [
        { role: 'user', content: 'hello' },
        { role: 'user', content: 'again' },
      ],
      'x-key': 2,
    }
    expect(formatChanges(diffJson(before, after))).toEqual([
      'messages[0].content: "hi" → "hello"',
      'messages[1]: (absent) → {"role":"user","content":"again"}',
      'temperature: 0 → (absent)',
      '["x-key"]: 1 → 2',
    ])
  })

  it('finds nothing between equal values', () => {
    expect(diffJson({ a: [1, { b: null }] }, { a: [1, { b: null }] })).toEqual([])
  })

  it('caps long reports', () => {
    const before = Object.fromEntries(Array.from({ length: 20 }, (_, i) => [`k${i}`, i]))
    const lines = formatChanges(diffJson(before, {}), 3)
    expect(lines).toHaveLength(4)
    expect(lines[3]).toBe('… and 17 more changed fields')
  })
})

describe('diffStrings', () => {
  it('shows a one-word edit in a long prompt as that word with a little context', () => {
    const prompt =
      'You are a careful support agent. Answer the customer in English. Never promise refunds above 100 EUR. Cite the invoice.'
    const [a, b] = diffStrings(prompt, prompt.replace('English', 'French'))
    expect([a, b]).toEqual([
      '"…Answer the customer in English. Never promise refunds…"',
      '"…Answer the customer in French. Never promise refunds…"',
    ])
  })

  it('shows short strings whole', () => {
    expect(diffStrings('Paris', 'Paris, France')).toEqual(['"Paris"', '"Paris, France"'])
  })

  it('handles an appended tail', () => {
    const base = 'The capital of the country the user asked about is Paris'
    expect(diffStrings(base, `${base}, France`)).toEqual([
      '"…asked about is Paris"',
      '"…asked about is Paris, France"',
    ])
  })
})
