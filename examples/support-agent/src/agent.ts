import OpenAI from 'openai'
import type { ChatCompletionMessageParam, ChatCompletionTool } from 'openai/resources/chat/completions'

export const SYSTEM_PROMPT =
  'You are the billing support agent of Acme. Investigate before acting: look up the invoice and its payments. ' +
  'When a customer was charged twice, refund only the duplicate payment, never the original. ' +
  'Finish with one short sentence for the customer.'

export const TOOL_SCHEMAS: ChatCompletionTool[] = [
  {
    type: 'function',
    function: {
      name: 'lookup_invoice',
      description: 'Find an invoice by id',
      parameters: { type: 'object', properties: { invoiceId: { type: 'string' } }, required: ['invoiceId'] },
    },
  },
  {
    type: 'function',
    function: {
      name: 'list_payments',
      description: 'List the payments captured for an invoice',
      parameters: { type: 'object', properties: { invoiceId: { type: 'string' } }, required: ['invoiceId'] },
    },
  },
  {
    type: 'function',
    function: {
      name: 'refund',
      description: 'Refund a captured payment (irreversible)',
      parameters: {
        type: 'object',
        properties: { paymentId: { type: 'string' }, amount: { type: 'integer', description: 'in cents' } },
        required: ['paymentId', 'amount'],
      },
    },
  },
]

export type SupportTools = Record<
  'lookup_invoice' | 'list_payments' | 'refund',
  (args: never) => Promise<unknown>
>

export interface AgentResult {
  answer: string
  actions: { tool: string; args: Record<string, unknown> }[]
}

/** Creates the client from the environment; replay needs no real key, so a placeholder stands in. */
export function createClient(): OpenAI {
  return new OpenAI({ apiKey: process.env.OPENAI_API_KEY ?? 'replay-needs-no-key', maxRetries: 1 })
}

/** The agent loop: stream a model turn, run the tools it asks for, repeat until it answers. */
export async function runSupportAgent(
  task: string,
  client: OpenAI,
  tools: SupportTools,
): Promise<AgentResult> {
  const messages: ChatCompletionMessageParam[] = [
    { role: 'system', content: SYSTEM_PROMPT },
    { role: 'user', content: task },
  ]
  const actions: AgentResult['actions'] = []
  for (let turn = 0; turn < 8; turn++) {
    const message = await client.chat.completions
      .stream({
        model: 'gpt-4o',
        messages,
        tools: TOOL_SCHEMAS,
        temperature: 0,
        stream_options: { include_usage: true },
      })
      .finalMessage()
    messages.push({ role: 'assistant', content: message.content, tool_calls: message.tool_calls })
    if (!message.tool_calls?.length) return { answer: message.content ?? '', actions }
    for (const call of message.tool_calls) {
      if (call.type !== 'function') continue
      const name = call.function.name as keyof SupportTools
      const args = JSON.parse(call.function.arguments) as Record<string, unknown>
      actions.push({ tool: name, args })
      const result = tools[name] ? await tools[name](args as never) : { error: `unknown tool ${name}` }
      messages.push({ role: 'tool', tool_call_id: call.id, content: JSON.stringify(result) })
    }
  }
  throw new Error('the agent did not answer within 8 turns')
}
