import type { Turn } from '@agent-tape/fake-provider'
import type OpenAI from 'openai'
import type { ChatCompletionMessageParam, ChatCompletionTool } from 'openai/resources/chat/completions'

/** A small tool-using agent on the real `openai` SDK: chat completions, streaming or not. */
export const WEATHER_TOOLS: ChatCompletionTool[] = [
  {
    type: 'function',
    function: {
      name: 'get_weather',
      description: 'Current weather',
      parameters: { type: 'object', properties: { city: { type: 'string' } } },
    },
  },
  {
    type: 'function',
    function: {
      name: 'get_time',
      description: 'Local time',
      parameters: { type: 'object', properties: { city: { type: 'string' } } },
    },
  },
]

const toolImpl: Record<string, (args: { city: string }) => string> = {
  get_weather: ({ city }) => `${city}: 18°C, light rain`,
  get_time: ({ city }) => `${city}: 14:05`,
}

/** The fake model's script: weather, then time, then an answer (decided by how many tool results it saw). */
export function weatherScript(body: { messages?: { role: string }[] }): Turn {
  const seen = (body.messages ?? []).filter((m) => m.role === 'tool').length
  if (seen === 0) return { toolCalls: [{ name: 'get_weather', args: { city: 'Paris' } }] }
  if (seen === 1) return { toolCalls: [{ name: 'get_time', args: { city: 'Paris' } }] }
  return {
    text: ['It is 14:05 in Paris', ' and 18°C with light rain.'],
    usage: { inputTokens: 120, outputTokens: 14 },
  }
}

export async function runWeatherAgent(client: OpenAI, question: string, stream: boolean): Promise<string> {
  const messages: ChatCompletionMessageParam[] = [
    { role: 'system', content: 'You answer questions about cities.' },
    { role: 'user', content: question },
  ]
  for (let step = 0; step < 5; step++) {
    const message = stream
      ? await client.chat.completions
          .stream({
            model: 'gpt-4o',
            messages,
            tools: WEATHER_TOOLS,
            stream_options: { include_usage: true },
          })
          .finalMessage()
      : (await client.chat.completions.create({ model: 'gpt-4o', messages, tools: WEATHER_TOOLS }))
          .choices[0]!.message
    messages.push(message as ChatCompletionMessageParam)
    if (!message.tool_calls?.length) return message.content ?? ''
    for (const call of message.tool_calls) {
      if (call.type !== 'function') continue
      const result = toolImpl[call.function.name]!(JSON.parse(call.function.arguments))
      messages.push({ role: 'tool', tool_call_id: call.id, content: result })
    }
  }
  throw new Error('step budget exhausted')
}
