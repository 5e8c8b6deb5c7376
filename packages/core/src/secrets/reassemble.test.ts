import { expect, it } from 'vitest'
import { reassembledTexts, redactStreams } from './reassemble.js'

const chatToolDelta = (index: number, args: string) => ({
  json: { choices: [{ index: 0, delta: { tool_calls: [{ index, function: { arguments: args } }] } }] },
})

it('joins each stream of pieces on its own: per choice, per tool call, per content block', () => {
  const out = {
    body: {
      sse: [
        chatToolDelta(0, '{"city":'),
        chatToolDelta(1, '{"q":'),
        chatToolDelta(0, '"Paris"}'),
        chatToolDelta(1, '"rain"}'),
        { json: { type: 'content_block_delta', index: 2, delta: { text: 'Hel' } } },
        { json: { type: 'content_block_delta', index: 2, delta: { text: 'lo' } } },
        { data: 'plain ' },
        { data: 'text' },
      ],
    },
  }
  const texts = Object.fromEntries(reassembledTexts(out, 'out').map((t) => [t.path, t.text]))
  expect(texts).toEqual({
    'out.body.sse[*].choices[]{index=0}.delta.tool_calls[]{index=0}.function.arguments (reassembled from 2 events)':
      '{"city":"Paris"}',
    'out.body.sse[*].choices[]{index=0}.delta.tool_calls[]{index=1}.function.arguments (reassembled from 2 events)':
      '{"q":"rain"}',
    'out.body.sse[*]{index=2}.delta.text (reassembled from 2 events)': 'Hello',
    'out.body.sse[*].data (reassembled from 2 events)': 'plain text',
  })
})

it('does not join a field that repeats the same value in every event (an id)', () => {
  const sse = [{ json: { id: 'msg_1', delta: 'a' } }, { json: { id: 'msg_1', delta: 'b' } }]
  expect(reassembledTexts({ sse }).map((t) => t.text)).toEqual(['ab'])
})

it('cuts a secret found in the joined text out of every piece, leaving the marker where it began', () => {
  const sse = ['Key: ab', 'cdef', 'gh done'].map((content) => ({ json: { delta: { content } } }))
  const find = (text: string) => {
    const start = text.indexOf('abcdefgh')
    return start === -1 ? [] : [{ start, end: start + 8, rule: 'test' }]
  }
  const redacted = redactStreams({ out: { sse } }, find) as { out: { sse: typeof sse } }
  expect(redacted.out.sse.map((e) => e.json.delta.content)).toEqual(['Key: [REDACTED:test]', '', ' done'])
  expect(sse[0]!.json.delta.content).toBe('Key: ab')
  const clean = { out: { sse } }
  expect(redactStreams(clean, () => [])).toBe(clean)
})

it('joins the lines of a newline-delimited JSON stream and of framed messages as it joins events', () => {
  const ndjson = ['sk-proj-', 'abc', 'def'].map((content, i) => ({ t: i, json: { message: { content } } }))
  const frames = [
    { t: 0, json: { delta: { text: 'A' } } },
    { t: 1, json: { delta: { text: 'B' } } },
    { t: 2, text: 'x' },
  ]
  const texts = Object.fromEntries(
    reassembledTexts({ body: { ndjson }, frames: { frames } }).map((t) => [t.path, t.text]),
  )
  expect(texts).toEqual({
    'body.ndjson[*].message.content (reassembled from 3 events)': 'sk-proj-abcdef',
    'frames.frames[*].delta.text (reassembled from 2 events)': 'AB',
  })
  const redacted = redactStreams({ ndjson }, (text) => {
    const start = text.indexOf('sk-proj-')
    return start === -1 ? [] : [{ start, end: text.length, rule: 'openai-key' }]
  }) as { ndjson: { json: { message: { content: string } } }[] }
  expect(redacted.ndjson.map((l) => l.json.message.content)).toEqual(['[REDACTED:openai-key]', '', ''])
})
