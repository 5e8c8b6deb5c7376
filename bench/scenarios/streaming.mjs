/** Scenario 2: a 500-event SSE answer replayed and consumed by the openai SDK's stream helper. */
import OpenAI from 'openai'
import { summarize, timeReplays } from '../lib/stats.mjs'

export const STREAM_DELTAS = 496 // + role, finish and usage chunks and [DONE] = 500 events

export async function streaming({ contenders, names, provider, config }) {
  const count = config.quick ? 3 : 10
  const deltas = Array.from({ length: STREAM_DELTAS }, (_, i) => `word${i} `)
  const expected = deltas.join('')
  const send = async () => {
    // A client per session: SDK clients capture `fetch` when they are constructed.
    const client = new OpenAI({ apiKey: 'sk-test', baseURL: provider.openaiBaseURL, maxRetries: 0 })
    for (let i = 0; i < count; i++) {
      const stream = client.chat.completions.stream({
        model: 'gpt-4o',
        messages: [{ role: 'user', content: 'Count to 496, one word at a time.' }],
        stream_options: { include_usage: true },
      })
      const completion = await stream.finalChatCompletion()
      if (completion.choices[0].message.content !== expected) throw new Error('stream replayed wrong text')
    }
  }
  const name = 'streaming-500'
  provider.script.push(() => ({ text: deltas, usage: { inputTokens: 12, outputTokens: STREAM_DELTAS } }))
  for (const c of names) await contenders[c].record(name, send)
  provider.script.pop()
  const times = await timeReplays({ contenders, names, config }, name, () => send, count)
  return { count, times, summary: Object.fromEntries(names.map((c) => [c, summarize(times[c])])) }
}
