import type { Message, Ollama, Tool } from 'ollama'
import { type Ask, runTool, STEPS } from './research.js'

const TOOLS: Tool[] = Object.entries({ search: 'query', fetch_page: 'url' }).map(([name, field]) => ({
  type: 'function',
  function: { name, parameters: { type: 'object', properties: { [field]: { type: 'string' } } } },
}))

/** The research agent on Ollama's `/api/chat`, JSON or newline-delimited parts. */
export async function ollamaResearch(client: Ollama, model: string, question: string, ask: Ask) {
  const messages: Message[] = [{ role: 'user', content: question }]
  for (let step = 0; step < STEPS; step++) {
    const request = { model, messages, tools: TOOLS }
    let message: Message
    if (ask.stream) {
      const parts = []
      for await (const part of await client.chat({ ...request, stream: true })) {
        parts.push(part)
        ask.received.push(part)
      }
      message = {
        role: 'assistant',
        content: parts.map((p) => p.message.content).join(''),
        tool_calls: parts.flatMap((p) => p.message.tool_calls ?? []),
      }
    } else {
      const response = await client.chat({ ...request, stream: false })
      ask.received.push(response)
      message = response.message
    }
    messages.push(message)
    if (!message.tool_calls?.length) return message.content
    for (const call of message.tool_calls) {
      const content = runTool(call.function.name, call.function.arguments)
      messages.push({ role: 'tool', content, tool_name: call.function.name })
    }
  }
  throw new Error(`no answer after ${STEPS} steps`)
}
