import { type FakeProvider, startFakeProvider } from '@agent-tape/fake-provider'
import type OpenAI from 'openai'
import type { ChatCompletionMessageParam, ChatCompletionTool } from 'openai/resources/chat/completions'

/** The city agent's tools as the model sees them. */
export const CITY_TOOLS: ChatCompletionTool[] = ['get_weather', 'get_time'].map((name) => ({
  type: 'function',
  function: { name, parameters: { type: 'object', properties: { city: { type: 'string' } } } },
}))

/**
 * A fake model for city questions: it asks for the weather, then the time of the city named in
 * the question, then answers naming that city. Streams when asked, `chunkDelayMs` apart; with a
 * `seed`, its ids are the same from one start to the next.
 */
export function startCityModel(chunkDelayMs = 0, seed?: string): Promise<FakeProvider> {
  return startFakeProvider({
    chunkDelayMs,
    ...(seed === undefined ? {} : { seed }),
    reply: ({ body }) => {
      const messages = (body.messages ?? []) as { role: string; content?: unknown }[]
      const question = String(messages.find((m) => m.role === 'user')?.content ?? '')
      const city = /in ([\w-]+)\?/.exec(question)?.[1] ?? 'Nowhere'
      const seen = messages.filter((m) => m.role === 'tool').length
      if (seen === 0) return { toolCalls: [{ name: 'get_weather', args: { city } }] }
      if (seen === 1) return { toolCalls: [{ name: 'get_time', args: { city } }] }
      return { text: ['It is 14:05 in ', city, ', 18°C.'], usage: { inputTokens: 120, outputTokens: 14 } }
    },
  })
}

/** What the tools answer (pure, so a replay that runs them again gets the same). */
export function cityTool(name: string, args: { city: string }): string {
  return name === 'get_weather' ? `${args.city}: 18°C, light rain` : `${args.city}: 14:05`
}

/** Three model requests on the real openai SDK: the weather, the time, the answer (streamed when asked). */
export async function askCity(client: OpenAI, city: string, stream = false): Promise<string> {
  const messages: ChatCompletionMessageParam[] = [
    { role: 'system', content: 'You answer questions about cities.' },
    { role: 'user', content: `What is the weather and time in ${city}?` },
  ]
  for (let step = 0; step < 5; step++) {
    const message = stream
      ? await client.chat.completions.stream({ model: 'gpt-4o', messages, tools: CITY_TOOLS }).finalMessage()
      : (await client.chat.completions.create({ model: 'gpt-4o', messages, tools: CITY_TOOLS })).choices[0]!
          .message
    messages.push(message as ChatCompletionMessageParam)
    if (!message.tool_calls?.length) return message.content ?? ''
    for (const call of message.tool_calls) {
      if (call.type !== 'function') continue
      const content = cityTool(call.function.name, JSON.parse(call.function.arguments))
      messages.push({ role: 'tool', tool_call_id: call.id, content })
    }
  }
  throw new Error('step budget exhausted')
}
