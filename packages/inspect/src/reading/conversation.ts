import { compactArguments } from '@agent-tape/http/internal'

/**
 * A model request's conversation read for people, whatever the API: the system prompt when the
 * request carries it apart from the messages, each message with its role and parts (text, tool
 * calls, tool results), the tools offered, and the other parameters. Read from the body's
 * field names the APIs share (`messages`, `input`, `contents`; `system`, `instructions`,
 * `systemInstruction`), as the view's transcript reads them.
 */
export interface RequestConversation {
  /** The system prompt, when the body holds it apart from the messages. */
  system?: string
  messages: ConversationMessage[]
  /** The messages as recorded, to tell which of them a request shares with the one before it. */
  items: readonly unknown[]
  tools: OfferedTool[]
  /** The rest of the body: the model, decoding parameters, … */
  params: Record<string, unknown>
}

export interface ConversationMessage {
  /** `user`, `assistant`, `tool`, … or the item's type (`function_call_output`). */
  role: string
  parts: ConversationPart[]
}

/** A piece of a message: text; a tool call (its name and arguments as JSON text); a tool's result; other data. */
export type ConversationPart =
  | { type: 'text'; text: string }
  | { type: 'call'; name: string; arguments: string }
  | { type: 'result'; value: unknown }
  | { type: 'data'; value: unknown }

export interface OfferedTool {
  name: string
  definition: unknown
}

const SYSTEM = ['system', 'instructions', 'systemInstruction', 'system_instruction']
const CONVERSATION = ['messages', 'input', 'contents']
// Input items that are a turn without a role: who said them.
const ITEM_ROLES: Record<string, string> = { function_call: 'assistant', function_call_output: 'tool' }

/** Reads the conversation of a model request's recorded input (`in` of an `llm` decision). */
export function readConversation(input: unknown): RequestConversation {
  const body = bodyOf(input)
  const params: Record<string, unknown> = { ...body }
  const conversation: RequestConversation = { messages: [], items: [], tools: [], params }
  const system = SYSTEM.find((key) => body[key] !== undefined)
  if (system !== undefined) conversation.system = textOf(body[system])
  for (const key of SYSTEM) delete params[key]
  const list = CONVERSATION.find((key) => body[key] !== undefined)
  if (list !== undefined) {
    const value = body[list]
    // A bare string is one user message (`input: "…"`).
    const items = Array.isArray(value) ? value : [{ role: 'user', content: value }]
    conversation.items = items
    conversation.messages = items.map(readMessage)
  }
  for (const key of CONVERSATION) delete params[key]
  if (Array.isArray(body.tools)) {
    const names = toolNames(input)
    conversation.tools = body.tools.map((definition, i) => ({ name: names[i]!, definition }))
    delete params.tools
  }
  return conversation
}

/** The names of the tools a model request offers: a tool's `name`, its function's, or its type. */
export function toolNames(input: unknown): string[] {
  const tools = bodyOf(input).tools
  if (!Array.isArray(tools)) return []
  return tools.map((tool) => {
    const t = asRecord(tool)
    const name = t.name ?? asRecord(t.function).name ?? t.type
    return typeof name === 'string' ? name : '(tool)'
  })
}

/** The body of a request taped at HTTP; the input itself of a model call taped in code (`tape.call('llm', …)`). */
function bodyOf(input: unknown): Record<string, unknown> {
  const record = asRecord(input)
  return 'body' in record ? asRecord(record.body) : record
}

function readMessage(item: unknown): ConversationMessage {
  if (typeof item === 'string') return { role: 'user', parts: [{ type: 'text', text: item }] }
  const o = asRecord(item)
  const role =
    typeof o.role === 'string' ? o.role : typeof o.type === 'string' ? (ITEM_ROLES[o.type] ?? o.type) : 'item'
  const parts: ConversationPart[] = []
  const content = o.content ?? o.parts
  if (typeof content === 'string') parts.push({ type: 'text', text: content })
  else if (Array.isArray(content)) parts.push(...content.map(readPart))
  else if (content !== undefined && content !== null) parts.push({ type: 'data', value: content })
  for (const call of Array.isArray(o.tool_calls) ? o.tool_calls : []) {
    const f = asRecord(asRecord(call).function)
    parts.push(callPart(f.name, f.arguments))
  }
  if (o.type === 'function_call') parts.push(callPart(o.name, o.arguments))
  if (o.output !== undefined) parts.push({ type: 'result', value: o.output })
  if (parts.length === 0) parts.push({ type: 'data', value: item })
  return { role, parts }
}

function readPart(part: unknown): ConversationPart {
  if (typeof part === 'string') return { type: 'text', text: part }
  const p = asRecord(part)
  if (typeof p.text === 'string') return { type: 'text', text: p.text }
  if (p.type === 'tool_use') return callPart(p.name, p.input)
  if (p.type === 'tool_result') return { type: 'result', value: resultOf(p.content) }
  const call = asRecord(p.functionCall ?? p.toolUse)
  if (call.name !== undefined) return callPart(call.name, call.args ?? call.input)
  const response = p.functionResponse ?? p.toolResult
  if (response !== undefined) {
    const r = asRecord(response)
    return { type: 'result', value: resultOf(r.response ?? r.content ?? response) }
  }
  return { type: 'data', value: part }
}

function callPart(name: unknown, args: unknown): ConversationPart {
  return {
    type: 'call',
    name: typeof name === 'string' ? name : '(unnamed)',
    arguments: typeof args === 'string' ? compactArguments(args) : (JSON.stringify(args ?? {}) ?? '{}'),
  }
}

/** A tool result's content: its text when it is text blocks only, else the value as it is. */
function resultOf(content: unknown): unknown {
  if (!Array.isArray(content)) return content
  const texts = content.map((part) => asRecord(part).text)
  return texts.every((t) => typeof t === 'string') ? texts.join('\n') : content
}

/** A system prompt's text: a string, text blocks joined by lines, or parts (`{ parts: [{ text }] }`). */
function textOf(value: unknown): string {
  if (typeof value === 'string') return value
  if (Array.isArray(value)) return value.map(textOf).join('\n')
  const o = asRecord(value)
  if (typeof o.text === 'string') return o.text
  if (Array.isArray(o.parts)) return textOf(o.parts)
  return JSON.stringify(value) ?? ''
}

function asRecord(value: unknown): Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : {}
}
