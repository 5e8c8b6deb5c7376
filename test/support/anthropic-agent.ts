import type Anthropic from '@anthropic-ai/sdk'
import { RESEARCH_TOOLS } from './scripts.js'

const TOOLS: Anthropic.Tool[] = [
  {
    name: 'search',
    description: 'Web search',
    input_schema: { type: 'object', properties: { query: { type: 'string' } } },
  },
  {
    name: 'fetch_page',
    description: 'Fetch a page',
    input_schema: { type: 'object', properties: { url: { type: 'string' } } },
  },
]

/** A research agent on the real `@anthropic-ai/sdk`, streaming every turn with `messages.stream`. */
export async function runResearchAgent(client: Anthropic, question: string) {
  const messages: Anthropic.MessageParam[] = [{ role: 'user', content: question }]
  const finals: Anthropic.Message[] = []
  for (let step = 0; step < 5; step++) {
    const final = await client.messages
      .stream({ model: 'claude-sonnet-5', max_tokens: 512, system: 'Be brief.', messages, tools: TOOLS })
      .finalMessage()
    finals.push(final)
    messages.push({ role: 'assistant', content: final.content })
    const uses = final.content.filter((b): b is Anthropic.ToolUseBlock => b.type === 'tool_use')
    if (uses.length === 0) {
      const text = final.content.map((b) => (b.type === 'text' ? b.text : '')).join('')
      return { text, finals }
    }
    messages.push({
      role: 'user',
      content: uses.map((u) => ({
        type: 'tool_result' as const,
        tool_use_id: u.id,
        content: (RESEARCH_TOOLS as Record<string, (a: never) => string>)[u.name]!(u.input as never),
      })),
    })
  }
  throw new Error('step budget exhausted')
}
