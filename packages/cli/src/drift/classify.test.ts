import type { Cassette, DecisionRecord } from '@agent-tape/core/internal'
import { diffCassettes } from '@agent-tape/inspect'
import { describe, expect, it } from 'vitest'
import { classifyDiff } from './classify.js'

const header = { format: 2, keyScheme: 1, test: 'test/a.test.ts > a', recordedAt: '2026-12-01T00:00:00.000Z' }

function model(seq: number, question: string, answer: string, tokens = { in: 10, out: 4 }): DecisionRecord {
  return {
    seq,
    key: `llm:${String(seq).padStart(16, '0')}` as DecisionRecord['key'],
    kind: 'llm',
    step: seq,
    ms: 1,
    in: {
      api: 'openai-chat',
      method: 'POST',
      path: '/v1/chat/completions',
      body: { model: 'gpt-4o-mini', messages: [{ role: 'user', content: question }] },
    },
    out: {
      status: 200,
      headers: { 'content-type': 'application/json' },
      body: {
        json: {
          id: `chatcmpl-${seq}`,
          model: 'gpt-4o-mini',
          choices: [{ index: 0, message: { role: 'assistant', content: answer }, finish_reason: 'stop' }],
          usage: {
            prompt_tokens: tokens.in,
            completion_tokens: tokens.out,
            total_tokens: tokens.in + tokens.out,
          },
        },
      },
    },
  }
}

function tool(seq: number, step: number, result: string): DecisionRecord {
  return {
    seq,
    key: `tool:${String(seq).padStart(16, '0')}` as DecisionRecord['key'],
    kind: 'tool',
    step,
    ms: 1,
    in: { name: 'get_weather', args: { city: 'Paris' } },
    out: result,
  }
}

const cassette = (...decisions: DecisionRecord[]) => ({ header, decisions }) as unknown as Cassette
const classify = (a: Cassette, b: Cassette) => classifyDiff(diffCassettes('a.jsonl', a, 'b.jsonl', b))

describe('classifyDiff', () => {
  it('says unchanged for the same answers, and for an answer whose token counts alone changed', () => {
    const committed = cassette(model(1, 'Hi?', 'Hello'), tool(2, 1, '18°C'))
    expect(classify(committed, committed)).toEqual({ class: 'unchanged' })
    const cached = cassette(model(1, 'Hi?', 'Hello', { in: 10, out: 5 }), tool(2, 1, '18°C'))
    expect(classify(committed, cached)).toEqual({ class: 'unchanged' })
  })

  it('says model for the same request answered differently, naming the step and the field', () => {
    const committed = cassette(model(1, 'Hi?', 'Hello'), tool(2, 1, '18°C'))
    const live = cassette(model(1, 'Hi?', 'Good day'), tool(2, 1, '21°C'))
    expect(classify(committed, live)).toEqual({
      class: 'model',
      first: {
        where: 'step 1, model request (gpt-4o-mini)',
        what: expect.stringMatching(/^text: .*Hello.* → .*Good day/),
      },
    })
  })

  it('says tools for a tool that answers differently first, and for a request changed by something no tape records', () => {
    const committed = cassette(model(1, 'Hi?', 'Hello'), tool(2, 1, '18°C'), model(3, 'Then?', 'Bye'))
    expect(
      classify(committed, cassette(model(1, 'Hi?', 'Hello'), tool(2, 1, '21°C'), model(3, 'Then?', 'Bye'))),
    ).toEqual({
      class: 'tools',
      first: { where: 'step 1, tool "get_weather"', what: 'result: "18°C" → "21°C"' },
    })
    const clock = cassette(model(1, 'Hi?', 'Hello'), tool(2, 1, '18°C'), model(3, 'Then at 10:02?', 'Bye'))
    expect(classify(committed, clock)).toEqual({
      class: 'tools',
      first: {
        where: 'step 3, model request (gpt-4o-mini)',
        what: expect.stringMatching(/^request changed: body\.messages\[0\]\.content: /),
      },
    })
  })
})
