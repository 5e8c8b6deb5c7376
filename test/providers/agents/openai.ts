import type OpenAI from 'openai'
import type { ChatCompletionMessageParam, ChatCompletionTool } from 'openai/resources/chat/completions'
import { RESEARCH_TOOLS } from '../../support/scripts.js'
import { type Ask, runTool, STEPS } from './research.js'

const CHAT_TOOLS: ChatCompletionTool[] = Object.entries({ search: 'query', fetch_page: 'url' }).map(
  ([name, field]) => ({
    type: 'function',
    function: { name, parameters: { type: 'object', properties: { [field]: { type: 'string' } } } },
  }),
)

/** The research agent on chat completions (`create`, or the `stream` helper's final message). */
export async function chatResearch(client: OpenAI, model: string, question: string, ask: Ask) {
  const messages: ChatCompletionMessageParam[] = [{ role: 'user', content: question }]
  for (let step = 0; step < STEPS; step++) {
    let message: OpenAI.ChatCompletionMessage
    if (ask.stream) {
      const stream = client.chat.completions.stream({
        model,
        messages,
        tools: CHAT_TOOLS,
        stream_options: { include_usage: true },
      })
      stream.on('chunk', (chunk) => ask.received.push(chunk))
      message = await stream.finalMessage()
    } else {
      const completion = await client.chat.completions.create({ model, messages, tools: CHAT_TOOLS })
      ask.received.push(completion)
      message = completion.choices[0]!.message
    }
    messages.push(message as ChatCompletionMessageParam)
    if (!message.tool_calls?.length) return message.content ?? ''
    for (const call of message.tool_calls) {
      if (call.type !== 'function') continue
      const content = runTool(call.function.name, JSON.parse(call.function.arguments))
      messages.push({ role: 'tool', tool_call_id: call.id, content })
    }
  }
  throw new Error(`no answer after ${STEPS} steps`)
}

const RESPONSES_TOOLS: OpenAI.Responses.FunctionTool[] = Object.keys(RESEARCH_TOOLS).map((name) => ({
  type: 'function',
  name,
  strict: false,
  parameters: { type: 'object', properties: { query: { type: 'string' }, url: { type: 'string' } } },
}))

/** The research agent on the Responses API (`create`, or the `stream` helper's final response). */
export async function responsesResearch(client: OpenAI, model: string, question: string, ask: Ask) {
  const input: OpenAI.Responses.ResponseInput = [{ role: 'user', content: question }]
  for (let step = 0; step < STEPS; step++) {
    let response: OpenAI.Responses.Response
    if (ask.stream) {
      const stream = client.responses.stream({ model, input, tools: RESPONSES_TOOLS })
      stream.on('event', (event) => ask.received.push(event))
      response = await stream.finalResponse()
    } else {
      response = await client.responses.create({ model, input, tools: RESPONSES_TOOLS })
      ask.received.push(response)
    }
    const calls = response.output.filter((o) => o.type === 'function_call')
    if (calls.length === 0) return response.output_text
    for (const call of calls) {
      input.push(call)
      const output = runTool(call.name, JSON.parse(call.arguments))
      input.push({ type: 'function_call_output', call_id: call.call_id, output })
    }
  }
  throw new Error(`no answer after ${STEPS} steps`)
}
