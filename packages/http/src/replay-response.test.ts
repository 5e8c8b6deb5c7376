import { expect, it } from 'vitest'
import type { RecordedResponse } from './recorded-response.js'
import { buildReplayResponse } from './replay-response.js'

const sse: RecordedResponse = {
  status: 200,
  headers: { 'content-type': 'text/event-stream' },
  body: {
    sse: [
      { t: 5, json: { delta: 'Hel' } },
      { t: 6, json: { delta: 'lo' } },
      { t: 7, data: '[DONE]' },
    ],
  },
}
const TEXT = 'data: {"delta":"Hel"}\n\ndata: {"delta":"lo"}\n\ndata: [DONE]\n\n'

async function chunks(response: Response): Promise<Uint8Array[]> {
  const out: Uint8Array[] = []
  for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) out.push(chunk)
  return out
}

it('replays a recorded stream item by item, the same bytes every time, whatever a reader did to its chunks', async () => {
  const first = await chunks(buildReplayResponse(sse))
  expect(first).toHaveLength(3)
  expect(Buffer.concat(first).toString()).toBe(TEXT)
  for (const chunk of first) chunk.fill(0x21)
  const second = await chunks(buildReplayResponse(sse))
  expect(Buffer.concat(second).toString()).toBe(TEXT)
})

it('gives every item of an instant stream before the failure the recording ended with', async () => {
  const cut: RecordedResponse = {
    ...sse,
    body: {
      sse: sse.body && 'sse' in sse.body ? sse.body.sse.slice(0, 2) : [],
      end: { error: { name: 'TypeError', message: 'terminated' } },
    },
  }
  const reader = buildReplayResponse(cut).body!.getReader()
  const text: string[] = []
  const failure = await (async () => {
    for (;;) {
      const { done, value } = await reader.read()
      if (done) return undefined
      text.push(Buffer.from(value).toString())
    }
  })().catch((error: Error) => error)
  expect(text.join('')).toBe('data: {"delta":"Hel"}\n\ndata: {"delta":"lo"}\n\n')
  expect(failure).toBeInstanceOf(TypeError)
  expect(failure?.message).toBe('terminated')
})

it('replays a recorded JSON body and its headers the same way twice, and lets an instant retry go at once', async () => {
  const limited: RecordedResponse = {
    status: 429,
    headers: { 'content-type': 'application/json', 'retry-after': '20', 'x-request-id': 'req_1' },
    body: { json: { error: { message: 'slow down' } } },
  }
  for (let i = 0; i < 2; i++) {
    const instant = buildReplayResponse(limited)
    expect(instant.status).toBe(429)
    expect(Object.fromEntries(instant.headers)).toEqual({
      'content-type': 'application/json',
      'x-request-id': 'req_1',
      'retry-after-ms': '1',
    })
    expect(await instant.json()).toEqual({ error: { message: 'slow down' } })
    const paced = buildReplayResponse(limited, 'recorded')
    expect(paced.headers.get('retry-after')).toBe('20')
    expect(paced.headers.get('retry-after-ms')).toBeNull()
  }
})
