import { expect, it } from 'vitest'
import { priceDecision } from './price-table.js'

const decision = { seq: 1, step: 1 }

it('prices audio at the audio rate and the rest at the text rate, over HTTP and in sessions', () => {
  // gemini-2.5-flash: $0.30 per million text tokens in, $1.00 of audio in, $2.50 out.
  const text = priceDecision({
    ...decision,
    input: 1_000_000,
    output: 0,
    model: 'gemini-2.5-flash',
    api: 'gemini',
  })
  const heard = { ...decision, input: 1_000_000, output: 0, inputAudio: 400_000, model: 'gemini-2.5-flash' }
  expect(text).toBeCloseTo(0.3, 9)
  expect(priceDecision({ ...heard, api: 'gemini' })).toBeCloseTo(0.6 * 0.3 + 0.4 * 1, 9)
  // gpt-realtime, named by a session: text at $4 and $16 per million, audio at $32 and $64,
  // cached audio at $0.40.
  const spoken = {
    ...decision,
    input: 1_000_000,
    output: 1_000_000,
    inputAudio: 1_000_000,
    cached: 500_000,
    cachedAudio: 500_000,
    outputAudio: 1_000_000,
    model: 'gpt-realtime',
  }
  expect(priceDecision({ ...spoken, api: 'openai-realtime' })).toBeCloseTo(0.5 * 32 + 0.5 * 0.4 + 64, 9)
  // A session no codec reads names no provider to price by; nor does a name no codec has.
  expect(priceDecision({ ...spoken, api: 'websocket' })).toBeUndefined()
  expect(priceDecision({ ...spoken, api: 'no-such-api' })).toBeUndefined()
})
