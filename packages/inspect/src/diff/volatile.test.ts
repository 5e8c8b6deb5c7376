import { expect, it } from 'vitest'
import { maskVolatile } from './volatile.js'

it('masks provider ids wherever they appear and drops fields that change on every recording', () => {
  expect(
    maskVolatile({
      id: 'chatcmpl-y2EJNfHqleVPqr9fvwLqD0pa7B6t1',
      created: 1795978413,
      system_fingerprint: 'fp_f97509da98',
      obfuscation: 'L2nq3LsI7K',
      messages: [
        { role: 'tool', tool_call_id: 'call_ppD5TkUWR1jh3fTD9xWmag6s', content: 'ok' },
        { role: 'assistant', content: 'ids toolu_01C32579MxgjvZj8110VFagR and msg_01rc8BY7rYUxstwZfSZImGmA' },
      ],
      headers: {
        'x-request-id': 'req_1',
        'x-ratelimit-remaining-requests': '9999',
        'content-type': 'text/plain',
      },
      model: 'gpt-4o',
      msg_count: 3,
    }),
  ).toEqual({
    id: '<id>',
    messages: [
      { role: 'tool', tool_call_id: '<id>', content: 'ok' },
      { role: 'assistant', content: 'ids <id> and <id>' },
    ],
    headers: { 'content-type': 'text/plain' },
    model: 'gpt-4o',
    msg_count: 3,
  })
})

it('leaves short or ordinary words alone', () => {
  expect(maskVolatile(['call_me', 'resp_ok', 'message'])).toEqual(['call_me', 'resp_ok', 'message'])
})

it("drops a Responses API response's times, over HTTP and in a WebSocket session alike", () => {
  const response = (at: number) => ({
    id: 'resp_0a1b2c3d4e5f6a7b8c9d',
    object: 'response',
    created_at: at,
    completed_at: at + 2,
    status: 'completed',
    output: [{ id: 'msg_0a1b2c3d4e5f6a7b8c9d', type: 'message', content: [{ text: 'Hi' }] }],
  })
  expect(maskVolatile({ type: 'response.completed', response: response(1764700000) })).toEqual(
    maskVolatile({ type: 'response.completed', response: response(1764790000) }),
  )
  expect(maskVolatile(response(1764700000))).toEqual({
    id: '<id>',
    object: 'response',
    status: 'completed',
    output: [{ id: '<id>', type: 'message', content: [{ text: 'Hi' }] }],
  })
})
