import { asArray, asRecord } from './model-answer.js'

/** What a recorded model request asked, in a few words: how much context, which tools, the latest turn. */
export interface ModelRequest {
  api?: string
  method?: string
  path?: string
  model?: string
  /** Messages (chat, Anthropic) or input items (Responses) sent. */
  messages: number
  tools: number
  /** The last message or input item: who said it and what, as text. */
  last?: { role: string; text: string }
}

export function readModelRequest(input: unknown): ModelRequest {
  const record = asRecord(input)
  const body = asRecord(record.body)
  const request: ModelRequest = { messages: 0, tools: asArray(body.tools).length }
  for (const field of ['api', 'method', 'path'] as const) {
    if (typeof record[field] === 'string') request[field] = record[field] as string
  }
  if (typeof body.model === 'string') request.model = body.model
  const items =
    typeof body.input === 'string'
      ? [{ role: 'user', content: body.input }]
      : asArray(body.messages ?? body.input)
  request.messages = items.length
  const last = items.at(-1)
  if (last !== undefined) request.last = describeItem(asRecord(last))
  return request
}

function describeItem(item: Record<string, unknown>): { role: string; text: string } {
  const role = typeof item.role === 'string' ? item.role : typeof item.type === 'string' ? item.type : 'item'
  if (typeof item.output === 'string') return { role, text: item.output }
  return { role, text: contentText(item.content ?? item.arguments ?? item) }
}

function contentText(content: unknown): string {
  if (typeof content === 'string') return content
  if (!Array.isArray(content)) return JSON.stringify(content) ?? ''
  return content
    .map((part) => {
      const p = asRecord(part)
      if (typeof p.text === 'string') return p.text
      if (p.type === 'tool_result') return `tool_result: ${contentText(p.content)}`
      if (p.type === 'tool_use') return `tool_use ${String(p.name)}: ${JSON.stringify(p.input)}`
      return `[${typeof p.type === 'string' ? p.type : 'part'}]`
    })
    .join(' ')
}
