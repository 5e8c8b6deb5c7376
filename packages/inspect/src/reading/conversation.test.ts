import { describe, expect, it } from 'vitest'
import { readConversation } from './conversation.js'

const request = (body: Record<string, unknown>) => ({ api: 'any', method: 'POST', path: '/v1/x', body })

describe('readConversation', () => {
  it('reads a chat request: messages with their roles, calls and results; tools by name; the rest as parameters', () => {
    const conversation = readConversation(
      request({
        model: 'm-1',
        temperature: 0,
        messages: [
          { role: 'system', content: 'Be brief.' },
          { role: 'user', content: 'Weather in Paris?' },
          {
            role: 'assistant',
            content: null,
            tool_calls: [{ id: 'c1', function: { name: 'get_weather', arguments: '{ "city": "Paris" }' } }],
          },
          { role: 'tool', tool_call_id: 'c1', content: '{"sky":"rain"}' },
        ],
        tools: [{ type: 'function', function: { name: 'get_weather', parameters: {} } }],
      }),
    )
    expect(conversation.system).toBeUndefined()
    expect(conversation.messages).toEqual([
      { role: 'system', parts: [{ type: 'text', text: 'Be brief.' }] },
      { role: 'user', parts: [{ type: 'text', text: 'Weather in Paris?' }] },
      { role: 'assistant', parts: [{ type: 'call', name: 'get_weather', arguments: '{"city":"Paris"}' }] },
      { role: 'tool', parts: [{ type: 'text', text: '{"sky":"rain"}' }] },
    ])
    expect(conversation.tools.map((t) => t.name)).toEqual(['get_weather'])
    expect(conversation.params).toEqual({ model: 'm-1', temperature: 0 })
    expect(conversation.items).toHaveLength(4)
  })

  it('reads a system prompt kept apart, and content blocks with tool use and tool results', () => {
    const conversation = readConversation(
      request({
        system: [{ type: 'text', text: 'You search.' }],
        messages: [
          { role: 'user', content: 'When?' },
          {
            role: 'assistant',
            content: [
              { type: 'text', text: 'Let me search.' },
              { type: 'tool_use', id: 't1', name: 'search', input: { query: 'tape' } },
            ],
          },
          {
            role: 'user',
            content: [
              { type: 'tool_result', tool_use_id: 't1', content: [{ type: 'text', text: '3 results' }] },
            ],
          },
        ],
        tools: [{ name: 'search', input_schema: {} }],
      }),
    )
    expect(conversation.system).toBe('You search.')
    expect(conversation.messages.slice(1)).toEqual([
      {
        role: 'assistant',
        parts: [
          { type: 'text', text: 'Let me search.' },
          { type: 'call', name: 'search', arguments: '{"query":"tape"}' },
        ],
      },
      { role: 'user', parts: [{ type: 'result', value: '3 results' }] },
    ])
    expect(conversation.params).toEqual({})
  })

  it('reads input items (a bare string, function calls and their outputs) and instructions', () => {
    expect(
      readConversation(request({ instructions: 'Plan trips.', input: 'Lisbon or Oslo?' })),
    ).toMatchObject({
      system: 'Plan trips.',
      messages: [{ role: 'user', parts: [{ type: 'text', text: 'Lisbon or Oslo?' }] }],
    })
    const items = readConversation(
      request({
        input: [
          { type: 'function_call', call_id: 'c', name: 'find', arguments: '{"to":"Lisbon"}' },
          { type: 'function_call_output', call_id: 'c', output: '[]' },
        ],
      }),
    )
    expect(items.messages).toEqual([
      { role: 'assistant', parts: [{ type: 'call', name: 'find', arguments: '{"to":"Lisbon"}' }] },
      { role: 'tool', parts: [{ type: 'result', value: '[]' }] },
    ])
  })

  it('reads contents of parts (function calls and responses) and tool use blocks with their results', () => {
    const parts = readConversation(
      request({
        systemInstruction: { parts: [{ text: 'Answer in French.' }] },
        contents: [
          { role: 'model', parts: [{ functionCall: { name: 'lookup', args: { id: 7 } } }] },
          { role: 'user', parts: [{ functionResponse: { name: 'lookup', response: { ok: true } } }] },
        ],
      }),
    )
    expect(parts.system).toBe('Answer in French.')
    expect(parts.messages).toEqual([
      { role: 'model', parts: [{ type: 'call', name: 'lookup', arguments: '{"id":7}' }] },
      { role: 'user', parts: [{ type: 'result', value: { ok: true } }] },
    ])
    const blocks = readConversation(
      request({
        messages: [
          { role: 'assistant', content: [{ toolUse: { toolUseId: 'u', name: 'lookup', input: { id: 7 } } }] },
          { role: 'user', content: [{ toolResult: { toolUseId: 'u', content: [{ text: 'found' }] } }] },
          { role: 'user', content: [{ image: { format: 'png' } }] },
        ],
      }),
    )
    expect(blocks.messages).toEqual([
      { role: 'assistant', parts: [{ type: 'call', name: 'lookup', arguments: '{"id":7}' }] },
      { role: 'user', parts: [{ type: 'result', value: 'found' }] },
      { role: 'user', parts: [{ type: 'data', value: { image: { format: 'png' } } }] },
    ])
  })

  it('reads a request with no body as an empty conversation', () => {
    expect(readConversation(undefined)).toEqual({ messages: [], items: [], tools: [], params: {} })
  })
})
