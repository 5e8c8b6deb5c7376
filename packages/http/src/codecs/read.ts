import type { TokenUsage } from './codec.js'

/**
 * What `show`, `diff` and `view` read from a recorded model exchange, whatever the API: the
 * request in a few words, and the answer assembled (text and tool calls from a body or from a
 * stream's deltas, why it stopped). Each codec fills these from its own wire format.
 */

/** A tool call the model asked for, with its arguments as the raw JSON text it sent. */
export interface AnswerToolCall {
  id?: string
  name: string
  arguments: string
}

/** What a recorded model response said: the text and tool calls, why it stopped, its tokens. */
export interface ModelAnswer {
  status: number
  streamed: boolean
  model?: string
  text: string
  toolCalls: AnswerToolCall[]
  finishReason?: string
  usage?: TokenUsage
  /** An HTTP error, an in-band stream error, or a stream cut off mid-way. */
  error?: string
}

/** What a recorded model request asked, in a few words: how much context, which tools, the latest turn. */
export interface ModelRequest {
  api?: string
  method?: string
  path?: string
  model?: string
  /** Messages or input items sent. */
  messages: number
  tools: number
  /** The last message or input item: who said it and what, as text. */
  last?: { role: string; text: string }
}

/** The parts of an answer a codec reads from a body or a stream; the rest is common. */
export type AnswerParts = Pick<
  ModelAnswer,
  'model' | 'text' | 'toolCalls' | 'finishReason' | 'error' | 'usage'
>

/** One event of a recorded stream: its `event:` name and its data, parsed when it is JSON. */
export interface StreamEvent {
  event?: string
  data: unknown
}

export type Json = Record<string, unknown>

export function emptyAnswer(): AnswerParts {
  return { text: '', toolCalls: [] }
}

export function asRecord(value: unknown): Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Json) : {}
}

export function asArray(value: unknown): unknown[] {
  return Array.isArray(value) ? value : []
}

export function str(value: unknown): string | undefined {
  return typeof value === 'string' ? value : undefined
}

export function parseJson(text: string | undefined): unknown {
  if (text === undefined) return undefined
  try {
    return JSON.parse(text)
  } catch {
    return undefined
  }
}

export function toolCall(id: string | undefined, name: string | undefined, args: unknown): AnswerToolCall {
  const call: AnswerToolCall = {
    name: name ?? '(unnamed)',
    arguments: typeof args === 'string' ? args : JSON.stringify(args ?? {}),
  }
  if (id !== undefined) call.id = id
  return call
}

/** Tool calls collected by stream index, in index order. */
export function byIndex(calls: ReadonlyMap<number, AnswerToolCall>): AnswerToolCall[] {
  return [...calls.entries()].sort(([a], [b]) => a - b).map(([, call]) => call)
}

/**
 * The request summary most APIs share: `model` and `tools` in the body, a list of messages (or
 * input items), the last one described by its role and text.
 */
export function readMessagesRequest(
  body: Json,
  items: readonly unknown[],
  describePart: (part: Json) => string | undefined = () => undefined,
): Omit<ModelRequest, 'api' | 'method' | 'path'> {
  const request: Omit<ModelRequest, 'api' | 'method' | 'path'> = {
    messages: items.length,
    tools: asArray(body.tools).length,
  }
  if (typeof body.model === 'string') request.model = body.model
  const last = items.at(-1)
  if (last !== undefined) request.last = describeItem(asRecord(last), describePart)
  return request
}

function describeItem(
  item: Json,
  describePart: (part: Json) => string | undefined,
): { role: string; text: string } {
  const role = typeof item.role === 'string' ? item.role : typeof item.type === 'string' ? item.type : 'item'
  if (typeof item.output === 'string') return { role, text: item.output }
  return { role, text: contentText(item.content ?? item.arguments ?? item, describePart) }
}

/** A message's content as one line of text; parts that are not text are named by type. */
export function contentText(content: unknown, describePart: (part: Json) => string | undefined): string {
  if (typeof content === 'string') return content
  if (!Array.isArray(content)) return JSON.stringify(content) ?? ''
  return content
    .map((part) => {
      const p = asRecord(part)
      if (typeof p.text === 'string') return p.text
      return describePart(p) ?? `[${typeof p.type === 'string' ? p.type : 'part'}]`
    })
    .join(' ')
}
