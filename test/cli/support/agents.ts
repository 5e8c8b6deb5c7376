import type { Turn } from '@agent-tape/fake-provider'
import type Anthropic from '@anthropic-ai/sdk'
import type OpenAI from 'openai'
import type { ChatCompletionMessageParam, ChatCompletionTool } from 'openai/resources/chat/completions'
import type { Clients } from './record.js'

const CHAT_TOOLS: ChatCompletionTool[] = [
  {
    type: 'function',
    function: {
      name: 'get_weather',
      description: 'Current weather',
      parameters: { type: 'object', properties: { city: { type: 'string' } } },
    },
  },
]

/** Weather then answer; the answer text is a parameter so two recordings can differ. */
export function weatherTurns(answer: readonly string[]): Turn[] {
  return [
    {
      toolCalls: [{ name: 'get_weather', args: { city: 'Paris' } }],
      usage: { inputTokens: 61, outputTokens: 12 },
    },
    { text: answer, usage: { inputTokens: 98, outputTokens: 11 } },
  ]
}

/**
 * A tool-using agent on the real `openai` SDK, streaming chat completions: it reads one
 * environment key, asks the model, runs the taped tool it asks for, and asks again.
 */
export async function runWeatherAgent({ openai, tape }: Clients, question: string, stream = true) {
  const { WEATHER_UNITS } = tape.env(['WEATHER_UNITS'])
  const tools = tape.tools({
    get_weather: ({ city }: { city: string }) => ({
      city,
      tempC: 18,
      sky: 'light rain',
      units: WEATHER_UNITS,
    }),
  })
  const messages: ChatCompletionMessageParam[] = [
    { role: 'system', content: 'You answer questions about the weather in cities.' },
    { role: 'user', content: question },
  ]
  for (let step = 0; step < 4; step++) {
    const message = stream
      ? await openai.chat.completions
          .stream({ model: 'gpt-4o', messages, tools: CHAT_TOOLS, stream_options: { include_usage: true } })
          .finalMessage()
      : (await openai.chat.completions.create({ model: 'gpt-4o', messages, tools: CHAT_TOOLS })).choices[0]!
          .message
    messages.push(message as ChatCompletionMessageParam)
    if (!message.tool_calls?.length) return message.content ?? ''
    for (const call of message.tool_calls) {
      if (call.type !== 'function') continue
      const result = await tools.get_weather(JSON.parse(call.function.arguments))
      messages.push({ role: 'tool', tool_call_id: call.id, content: JSON.stringify(result) })
    }
  }
  throw new Error('step budget exhausted')
}

const ANTHROPIC_TOOLS: Anthropic.Tool[] = [
  {
    name: 'search',
    description: 'Web search',
    input_schema: { type: 'object', properties: { query: { type: 'string' } } },
  },
]

export const RESEARCH_TURNS: Turn[] = [
  {
    text: ['Let me search.'],
    toolCalls: [{ name: 'search', args: { query: 'magnetic tape 1928' } }],
    usage: { inputTokens: 40, outputTokens: 18 },
  },
  { text: ['Magnetic tape ', 'was invented ', 'in 1928.'], usage: { inputTokens: 90, outputTokens: 9 } },
]

/** A research agent on the real `@anthropic-ai/sdk`, streaming each turn. */
export async function runResearchAgent({ anthropic, tape }: Clients, question: string) {
  const search = tape.tools({ search: ({ query }: { query: string }) => `3 results for ${query}` }).search
  const messages: Anthropic.MessageParam[] = [{ role: 'user', content: question }]
  for (let step = 0; step < 4; step++) {
    const final = await anthropic.messages
      .stream({ model: 'claude-sonnet-5', max_tokens: 256, messages, tools: ANTHROPIC_TOOLS })
      .finalMessage()
    messages.push({ role: 'assistant', content: final.content })
    const uses = final.content.filter((b): b is Anthropic.ToolUseBlock => b.type === 'tool_use')
    if (uses.length === 0) return final.content.map((b) => (b.type === 'text' ? b.text : '')).join('')
    const content: Anthropic.ToolResultBlockParam[] = []
    for (const use of uses) {
      content.push({ type: 'tool_result', tool_use_id: use.id, content: await search(use.input as never) })
    }
    messages.push({ role: 'user', content })
  }
  throw new Error('step budget exhausted')
}

const RESPONSES_TOOLS: OpenAI.Responses.FunctionTool[] = [
  {
    type: 'function',
    name: 'search',
    strict: false,
    parameters: { type: 'object', properties: { query: { type: 'string' } } },
  },
]

/** The same research agent on the OpenAI Responses API, streamed. */
export async function runResponsesAgent({ openai, tape }: Clients, question: string) {
  const search = tape.tools({ search: ({ query }: { query: string }) => `3 results for ${query}` }).search
  const input: OpenAI.Responses.ResponseInput = [{ role: 'user', content: question }]
  for (let step = 0; step < 4; step++) {
    const response = await openai.responses
      .stream({ model: 'gpt-4.1', input, tools: RESPONSES_TOOLS })
      .finalResponse()
    const calls = response.output.flatMap((o) => (o.type === 'function_call' ? [o] : []))
    if (calls.length === 0) return response.output_text
    for (const call of calls) {
      input.push({ type: 'function_call', call_id: call.call_id, name: call.name, arguments: call.arguments })
      input.push({
        type: 'function_call_output',
        call_id: call.call_id,
        output: await search(JSON.parse(call.arguments)),
      })
    }
  }
  throw new Error('step budget exhausted')
}
