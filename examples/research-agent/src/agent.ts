import Anthropic from '@anthropic-ai/sdk'

/** The tools the agent may use, as the runner hands them over (taped or not, it does not care). */
export type ResearchTools = Record<'search' | 'fetch_page' | 'save_note', (args: never) => Promise<unknown>>

const TOOLS: Anthropic.Tool[] = [
  {
    name: 'search',
    description: 'Search the library; returns urls and titles',
    input_schema: { type: 'object', properties: { query: { type: 'string' } }, required: ['query'] },
  },
  {
    name: 'fetch_page',
    description: 'Read a page by url',
    input_schema: { type: 'object', properties: { url: { type: 'string' } }, required: ['url'] },
  },
  {
    name: 'save_note',
    description: 'Save a research note',
    input_schema: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] },
  },
]

export interface ResearchResult {
  answer: string
  toolCalls: string[]
  stopReasons: string[]
}

export function createClient(): Anthropic {
  return new Anthropic({ apiKey: process.env.ANTHROPIC_API_KEY ?? 'replay-needs-no-key', maxRetries: 1 })
}

/**
 * A research loop on streamed Anthropic messages: every turn streams, tool_use blocks run (tool
 * errors go back to the model as `is_error` results), until the model answers. The answer
 * language comes from the environment, which is why the test reads it through `tape.env`.
 */
export async function research(
  question: string,
  client: Anthropic,
  tools: ResearchTools,
  language = 'English',
): Promise<ResearchResult> {
  const messages: Anthropic.MessageParam[] = [{ role: 'user', content: question }]
  const result: ResearchResult = { answer: '', toolCalls: [], stopReasons: [] }
  for (let turn = 0; turn < 10; turn++) {
    const message = await client.messages
      .stream({
        model: 'claude-sonnet-5',
        max_tokens: 1024,
        system: `You are a careful researcher. Cite the page you read. Answer in ${language}.`,
        messages,
        tools: TOOLS,
      })
      .finalMessage()
    result.stopReasons.push(message.stop_reason ?? 'none')
    messages.push({ role: 'assistant', content: message.content })
    const uses = message.content.filter((b): b is Anthropic.ToolUseBlock => b.type === 'tool_use')
    if (uses.length === 0) {
      result.answer = message.content.map((b) => (b.type === 'text' ? b.text : '')).join('')
      return result
    }
    const results: Anthropic.ToolResultBlockParam[] = []
    for (const use of uses) {
      result.toolCalls.push(use.name)
      const tool = tools[use.name as keyof ResearchTools]
      try {
        const output = await tool(use.input as never)
        results.push({ type: 'tool_result', tool_use_id: use.id, content: JSON.stringify(output) })
      } catch (error) {
        results.push({ type: 'tool_result', tool_use_id: use.id, content: String(error), is_error: true })
      }
    }
    messages.push({ role: 'user', content: results })
  }
  throw new Error('the agent did not answer within 10 turns')
}
