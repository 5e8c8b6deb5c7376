import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { computeKey, isDecisionKey, stableJson } from './canonical-key.js'

const json = fc.jsonValue({ maxDepth: 4 })

/** Rebuilds an object with its keys in a random order, recursively. */
function shuffleKeys(value: unknown, seed: number): unknown {
  if (Array.isArray(value)) return value.map((v, i) => shuffleKeys(v, seed + i))
  if (typeof value !== 'object' || value === null) return value
  const entries = Object.entries(value)
  entries.sort(([a], [b]) => ((hashString(a) ^ seed) % 7) - ((hashString(b) ^ seed) % 7) || (a < b ? 1 : -1))
  return Object.fromEntries(entries.map(([k, v]) => [k, shuffleKeys(v, seed + 1)]))
}

function hashString(text: string): number {
  let h = 0
  for (const c of text) h = (h * 31 + c.charCodeAt(0)) | 0
  return Math.abs(h)
}

const request = fc.record({
  model: fc.constantFrom('gpt-4o', 'gpt-4.1-mini', 'claude-sonnet-4-5'),
  temperature: fc.double({ min: 0, max: 2, noNaN: true }),
  max_tokens: fc.integer({ min: 1, max: 4096 }),
  messages: fc.array(
    fc.record({ role: fc.constantFrom('system', 'user', 'assistant'), content: fc.string() }),
    {
      minLength: 1,
      maxLength: 6,
    },
  ),
  tools: fc.uniqueArray(
    fc.record({ name: fc.stringMatching(/^[a-z_]{1,12}$/), description: fc.string(), parameters: json }),
    { selector: (t) => t.name, maxLength: 4 },
  ),
})

describe('computeKey', () => {
  it('has the form kind:16 hex digits', () => {
    const key = computeKey('llm', { messages: [] }, { step: 1 })
    expect(key).toMatch(/^llm:[0-9a-f]{16}$/)
    expect(isDecisionKey(key)).toBe(true)
    expect(isDecisionKey('llm:xyz')).toBe(false)
  })

  it('is the sha256 of the stable JSON of input and step (a fixed vector)', () => {
    expect(stableJson({ step: 1, input: { b: 1, a: [true, null] } })).toBe(
      '{"input":{"a":[true,null],"b":1},"step":1}',
    )
    expect(computeKey('tool', { name: 'lookup', args: [{ id: 1 }] }, { step: 2 })).toBe(
      'tool:e2ea06949fee006a',
    )
  })

  it('never changes with object key order', () => {
    fc.assert(
      fc.property(json, fc.integer(), fc.nat(50), (input, seed, step) => {
        expect(computeKey('llm', shuffleKeys(input, seed), { step })).toBe(computeKey('llm', input, { step }))
      }),
    )
  })

  it('never changes with the whitespace of the JSON the input was parsed from', () => {
    fc.assert(
      fc.property(json, fc.integer({ min: 0, max: 8 }), (input, indent) => {
        const reparsed = JSON.parse(JSON.stringify(input, null, indent))
        expect(computeKey('llm', reparsed, { step: 1 })).toBe(computeKey('llm', input, { step: 1 }))
      }),
    )
  })

  it('always changes when a message changes', () => {
    fc.assert(
      fc.property(request, fc.nat(), fc.string({ minLength: 1 }), (req, i, extra) => {
        const index = i % req.messages.length
        const messages = req.messages.map((m, j) => (j === index ? { ...m, content: m.content + extra } : m))
        expect(computeKey('llm', { ...req, messages }, { step: 1 })).not.toBe(
          computeKey('llm', req, { step: 1 }),
        )
      }),
    )
  })

  it('always changes when a tool schema changes', () => {
    fc.assert(
      fc.property(request, fc.string({ minLength: 1 }), (req, extra) => {
        fc.pre(req.tools.length > 0)
        const tools = req.tools.map((t, j) => (j === 0 ? { ...t, description: t.description + extra } : t))
        expect(computeKey('llm', { ...req, tools }, { step: 1 })).not.toBe(
          computeKey('llm', req, { step: 1 }),
        )
      }),
    )
  })

  it('always changes when a decoding parameter changes', () => {
    fc.assert(
      fc.property(
        request,
        fc.double({ min: 0, max: 2, noNaN: true }),
        fc.integer({ min: 1, max: 9 }),
        (req, t, d) => {
          fc.pre(t !== req.temperature && !(Object.is(t, 0) && Object.is(req.temperature, -0)))
          expect(computeKey('llm', { ...req, temperature: t }, { step: 1 })).not.toBe(
            computeKey('llm', req, { step: 1 }),
          )
          const tokens = { ...req, max_tokens: req.max_tokens + d }
          expect(computeKey('llm', tokens, { step: 1 })).not.toBe(computeKey('llm', req, { step: 1 }))
        },
      ),
    )
  })

  it('always changes with the step and the lane', () => {
    fc.assert(
      fc.property(request, fc.nat(100), fc.integer({ min: 1, max: 5 }), (req, step, delta) => {
        const key = computeKey('llm', req, { step })
        expect(computeKey('llm', req, { step: step + delta })).not.toBe(key)
        expect(computeKey('llm', req, { step, lane: 'researcher' })).not.toBe(key)
      }),
    )
  })

  it('differs between kinds for the same input', () => {
    expect(computeKey('tool', { a: 1 }, { step: 1 }).slice(5)).toBe(
      computeKey('http', { a: 1 }, { step: 1 }).slice(5),
    )
    expect(computeKey('tool', { a: 1 }, { step: 1 })).not.toBe(computeKey('http', { a: 1 }, { step: 1 }))
  })
})
