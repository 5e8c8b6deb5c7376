import type Anthropic from '@anthropic-ai/sdk'
import { type Ask, runTool, STEPS } from './research.js'

export const ANTHROPIC_TOOLS: Anthropic.Tool[] = Object.entries({ search: 'query', fetch_page: 'url' }).map(
  ([name, field]) => ({
    name,
    input_schema: { type: 'object', properties: { [field]: { type: 'string' } } },
  }),
)

/** The research agent on `messages.create`, or the final message of `messages.stream`. */
export async function messagesResearch(client: Anthropic, model: string, question: string, ask: Ask) {
  const messages: Anthropic.MessageParam[] = [{ role: 'user', content: question }]
  for (let step = 0; step < STEPS; step++) {
    const request = { model, max_tokens: 512, messages, tools: ANTHROPIC_TOOLS }
    let message: Anthropic.Message
    if (ask.stream) {
      const stream = client.messages.stream(request)
      stream.on('streamEvent', (event) => ask.received.push(event))
      message = await stream.finalMessage()
    } else {
      message = await client.messages.create(request)
      ask.received.push(message)
    }
    const next = anthropicTurn(message.content)
    if (!next) return message.content.map((b) => (b.type === 'text' ? b.text : '')).join('')
    messages.push({ role: 'assistant', content: message.content }, next)
  }
  throw new Error(`no answer after ${STEPS} steps`)
}

/** The user turn that answers an assistant turn's tool uses; none when it used no tool. */
export function anthropicTurn(content: readonly { type: string }[]): Anthropic.MessageParam | undefined {
  const uses = content.filter((b): b is Anthropic.ToolUseBlock => b.type === 'tool_use')
  if (uses.length === 0) return undefined
  return {
    role: 'user',
    content: uses.map((use) => ({
      type: 'tool_result' as const,
      tool_use_id: use.id,
      content: runTool(use.name, use.input),
    })),
  }
}
