import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { MODEL_CODECS } from './index.js'

// A tool definition in each API's own shape, by codec.
const TOOL: Record<string, (name: string) => unknown> = {
  'openai-chat': (name) => ({ type: 'function', function: { name, parameters: { type: 'object' } } }),
  'openai-responses': (name) => ({ type: 'function', name, parameters: { type: 'object' } }),
  'anthropic-messages': (name) => ({ name, input_schema: { type: 'object' } }),
  ollama: (name) => ({ type: 'function', function: { name, parameters: { type: 'object' } } }),
  'bedrock-converse': (name) => ({ toolSpec: { name, inputSchema: { json: { type: 'object' } } } }),
  'bedrock-invoke': (name) => ({ name, input_schema: { type: 'object' } }),
  gemini: (name) => ({ functionDeclarations: [{ name, parameters: { type: 'OBJECT' } }] }),
}

// A request body with those tools, for the APIs that do not take them as a top-level `tools`.
const BODY: Record<string, (tools: unknown[]) => unknown> = {
  'bedrock-converse': (tools) => ({ messages: [], toolConfig: { tools } }),
}

const names = fc.uniqueArray(fc.stringMatching(/^[a-z][a-z0-9_]{0,11}$/), { minLength: 1, maxLength: 8 })

describe('codec keys do not depend on the order tools are declared in', () => {
  it.each(MODEL_CODECS.map((c) => [c.name, c] as const))('%s', (name, codec) => {
    const tool = TOOL[name]
    expect(tool, `a tool shape for ${name}`).toBeDefined()
    fc.assert(
      fc.property(
        names.chain((list) =>
          fc.tuple(fc.constant(list), fc.shuffledSubarray(list, { minLength: list.length })),
        ),
        ([declared, shuffled]) => {
          const body = (order: string[]) => {
            const tools = order.map((n) => tool!(n))
            return BODY[name]?.(tools) ?? { model: 'm', messages: [], tools }
          }
          expect(codec.canonicalBody(body(shuffled))).toEqual(codec.canonicalBody(body(declared)))
        },
      ),
      { numRuns: 200 },
    )
  })
})

it('gemini: declarations grouped in one tool, as SDKs send them, key the same in any order', () => {
  const codec = MODEL_CODECS.find((c) => c.name === 'gemini')!
  fc.assert(
    fc.property(
      names.chain((list) =>
        fc.tuple(fc.constant(list), fc.shuffledSubarray(list, { minLength: list.length })),
      ),
      ([declared, shuffled]) => {
        const body = (order: string[]) => ({
          contents: [],
          tools: [{ functionDeclarations: order.map((name) => ({ name })) }, { googleSearch: {} }],
        })
        expect(codec.canonicalBody(body(shuffled))).toEqual(codec.canonicalBody(body(declared)))
      },
    ),
    { numRuns: 200 },
  )
})
