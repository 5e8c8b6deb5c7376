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

  it('reads a query (a list of name and value pairs) by parameter name', () => {
    const query = (...pairs: [string, string][]) => ({ method: 'POST', query: pairs })
    const lines = (a: object, b: object) => formatChanges(diffJson(a, b))
    expect(lines(query(['api-version', '2024-10-21']), query(['api-version', '2025-04-01-preview']))).toEqual(
      ['query.api-version: "2024-10-21" → "2025-04-01-preview"'],
    )
    // Added and removed parameters, wherever they sort among the others.
    expect(lines(query(['a', '1'], ['limit', '10']), query(['limit', '20'], ['z', 'on']))).toEqual([
      'query.a: "1" → (absent)',
      'query.limit: "10" → "20"',
      'query.z: (absent) → "on"',
    ])
    // A name given twice lists its values; a name that is no word is quoted.
    expect(lines(query(['tag', 'a'], ['tag', 'b']), query(['tag', 'a'], ['tag', 'c']))).toEqual([
      'query.tag[1]: "b" → (absent)',
      'query.tag[1]: (absent) → "c"',
    ])
    expect(lines(query(['a b', '1']), query(['a b', '2']))).toEqual(['query["a b"]: "1" → "2"'])
    // A query added or removed whole, and a `query` that is no list of pairs, read as they are.
    expect(lines({ method: 'POST' }, query(['a', '1']))).toEqual(['query: (absent) → [["a","1"]]'])
    expect(lines({ query: 'a=1' }, { query: 'a=2' })).toEqual(['query: "a=1" → "a=2"'])
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

describe('alignment and word-level edits', () => {
  const system = {
    role: 'system',
    content:
      'You are a billing assistant. Look up the invoice before you answer. Refund only what the customer was charged twice, and never the original payment. Finish with one short sentence.',
  }
  const history = [
    system,
    { role: 'user', content: 'I was charged twice for INV-412.' },
    { role: 'assistant', content: 'Let me look that up.' },
    { role: 'user', content: 'Thanks, please hurry.' },
  ]

  it('shows an inserted few-shot pair as two added messages, not as every later message changed', () => {
    const after = [
      history[0],
      { role: 'user', content: 'Example: charged twice for INV-1.' },
      { role: 'assistant', content: 'Example: refunded the duplicate of INV-1.' },
      ...history.slice(1),
    ]
    expect(formatChanges(diffJson({ messages: history }, { messages: after }))).toEqual([
      'messages[1]: (absent) → {"role":"user","content":"Example: charged twice for INV-1."}',
      'messages[2]: (absent) → {"role":"assistant","content":"Example: refunded the duplicate of INV-1."}',
    ])
  })

  it('shows two separate edits of one prompt as two hunks, each with its own context', () => {
    const edited = system.content
      .replace('billing assistant', 'careful billing assistant')
      .replace('one short sentence', 'one short, friendly sentence')
    expect(
      formatChanges(diffJson({ messages: [system] }, { messages: [{ ...system, content: edited }] })),
    ).toEqual([
      'messages[0].content: "You are a billing assistant. Look…" → "You are a careful billing assistant. Look…"',
      'messages[0].content: "…Finish with one short sentence." → "…Finish with one short, friendly sentence."',
    ])
  })

  it('shows a removed tool as one removed item, and an edited one as its changed field', () => {
    const tool = (name: string, description: string) => ({ type: 'function', name, description })
    const before = [
      tool('lookup_invoice', 'Find an invoice'),
      tool('refund', 'Refund a payment'),
      tool('search', 'Search the web'),
    ]
    const after = [tool('lookup_invoice', 'Find an invoice by id'), tool('search', 'Search the web')]
    expect(formatChanges(diffJson({ tools: before }, { tools: after }))).toEqual([
      'tools[0].description: "Find an invoice" → "Find an invoice by id"',
      'tools[1]: {"type":"function","name":"refund","description":"Refund a payment"} → (absent)',
    ])
  })

  it('pairs an edited message with its edit even when new messages come before it', () => {
    const after = [
      history[0],
      { role: 'user', content: 'Example question.' },
      history[1],
      history[2],
      { role: 'user', content: 'Thanks, please hurry up.' },
    ]
    expect(formatChanges(diffJson({ messages: history }, { messages: after }))).toEqual([
      'messages[1]: (absent) → {"role":"user","content":"Example question."}',
      'messages[4].content: "Thanks, please hurry." → "Thanks, please hurry up."',
    ])
  })

  it('keeps a removed and an added item apart when they are not edits of each other', () => {
    const before = [{ role: 'user', content: 'What is the weather in Paris today?' }]
    const after = [{ role: 'assistant', content: 'Calling the calculator tool now.' }]
    expect(formatChanges(diffJson(before, after))).toEqual([
      '[0]: {"role":"user","content":"What is the weather in Paris today?"} → (absent)',
      '[0]: (absent) → {"role":"assistant","content":"Calling the calculator tool now."}',
    ])
  })

  it('falls back to one span when a string changed almost entirely', () => {
    const a = 'alpha beta gamma delta epsilon zeta eta theta iota kappa lambda mu'
    const b = 'one two three four five six seven eight nine ten eleven twelve thirteen'
    expect(formatChanges(diffJson({ p: a }, { p: b }))).toHaveLength(1)
  })
})
