import { isRecordedResponse, type RecordedResponse, recordedUsage, type TokenUsage } from '@agent-tape/http'

/** A tool call the model asked for, with its arguments as the raw JSON text it sent. */
export interface AnswerToolCall {
  id?: string
  name: string
  arguments: string
}

/**
 * What a recorded model response said, whatever its API and whether it was streamed: the text
 * and tool calls assembled from deltas, why it stopped, and the tokens it reported.
 */
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

type Json = Record<string, unknown>

/** Reads a recorded model response (`out` of an `llm` decision); `undefined` when it is not one. */
export function readModelAnswer(input: unknown, out: unknown): ModelAnswer | undefined {
  if (!isRecordedResponse(out)) return undefined
  const api = asRecord(input).api
  const answer: ModelAnswer = { status: out.status, streamed: false, text: '', toolCalls: [] }
  const body = out.body
  if (body && 'sse' in body) {
    answer.streamed = true
    const events = body.sse.map((e) => ({ event: e.event, data: e.json ?? parseJson(e.data) }))
    if (api === 'anthropic-messages') readAnthropicStream(events, answer)
    else if (api === 'openai-responses') readResponsesStream(events, answer)
    else readChatStream(events, answer)
    if (body.end) answer.error ??= `stream cut off: ${body.end.error.name}: ${body.end.error.message}`
  } else if (body && 'json' in body) {
    const json = asRecord(body.json)
    if (out.status >= 400 || json.error) answer.error = errorText(out, json)
    else if (api === 'anthropic-messages') readAnthropicMessage(json, answer)
    else if (api === 'openai-responses') readResponse(json, answer)
    else readChatCompletion(json, answer)
  } else if (body && 'text' in body && out.status >= 400) {
    answer.error = `${out.status}: ${body.text}`
  }
  const usage = recordedUsage(input, out)
  if (usage) answer.usage = usage
  return answer
}

function errorText(out: RecordedResponse, json: Json): string {
  const error = asRecord(json.error)
  const type = typeof error.type === 'string' ? `${error.type}: ` : ''
  const message = typeof error.message === 'string' ? error.message : JSON.stringify(json)
  return `${out.status} ${type}${message}`
}

function readChatCompletion(json: Json, answer: ModelAnswer): void {
  answer.model = str(json.model)
  const choice = asRecord(asArray(json.choices)[0])
  const message = asRecord(choice.message)
  answer.text = str(message.content) ?? ''
  for (const call of asArray(message.tool_calls)) {
    const fn = asRecord(asRecord(call).function)
    answer.toolCalls.push(toolCall(str(asRecord(call).id), str(fn.name), fn.arguments))
  }
  answer.finishReason = str(choice.finish_reason)
}

interface StreamEvent {
  event?: string
  data: unknown
}

function readChatStream(events: readonly StreamEvent[], answer: ModelAnswer): void {
  const calls = new Map<number, AnswerToolCall>()
  for (const { data } of events) {
    const chunk = asRecord(data)
    if (chunk.error)
      answer.error = `stream error: ${str(asRecord(chunk.error).message) ?? JSON.stringify(chunk.error)}`
    answer.model = str(chunk.model) ?? answer.model
    for (const c of asArray(chunk.choices)) {
      const choice = asRecord(c)
      if ((choice.index ?? 0) !== 0) continue
      const delta = asRecord(choice.delta)
      if (typeof delta.content === 'string') answer.text += delta.content
      for (const d of asArray(delta.tool_calls)) {
        const part = asRecord(d)
        const index = typeof part.index === 'number' ? part.index : calls.size
        const fn = asRecord(part.function)
        const call = calls.get(index) ?? { name: '', arguments: '' }
        if (typeof part.id === 'string') call.id = part.id
        if (typeof fn.name === 'string') call.name += fn.name
        if (typeof fn.arguments === 'string') call.arguments += fn.arguments
        calls.set(index, call)
      }
      answer.finishReason = str(choice.finish_reason) ?? answer.finishReason
    }
  }
  answer.toolCalls = [...calls.entries()].sort(([a], [b]) => a - b).map(([, call]) => call)
}

function readResponse(json: Json, answer: ModelAnswer): void {
  answer.model = str(json.model)
  for (const item of asArray(json.output)) {
    const o = asRecord(item)
    if (o.type === 'message') {
      for (const part of asArray(o.content)) {
        const p = asRecord(part)
        if (p.type === 'output_text' && typeof p.text === 'string') answer.text += p.text
      }
    } else if (o.type === 'function_call') {
      answer.toolCalls.push(toolCall(str(o.call_id), str(o.name), o.arguments))
    }
  }
  answer.finishReason = responseStatus(json)
}

function responseStatus(json: Json): string | undefined {
  const status = str(json.status)
  const reason = str(asRecord(json.incomplete_details).reason)
  return status && reason ? `${status} (${reason})` : status
}

function readResponsesStream(events: readonly StreamEvent[], answer: ModelAnswer): void {
  const calls = new Map<number, AnswerToolCall>()
  for (const { data } of events) {
    const e = asRecord(data)
    const index = typeof e.output_index === 'number' ? e.output_index : -1
    switch (e.type) {
      case 'response.created':
      case 'response.in_progress':
        answer.model = str(asRecord(e.response).model) ?? answer.model
        break
      case 'response.output_text.delta':
        if (typeof e.delta === 'string') answer.text += e.delta
        break
      case 'response.output_item.added':
      case 'response.output_item.done': {
        const item = asRecord(e.item)
        if (item.type !== 'function_call') break
        const call = calls.get(index) ?? { name: '', arguments: '' }
        call.id = str(item.call_id) ?? call.id
        call.name = str(item.name) ?? call.name
        if (e.type === 'response.output_item.done' && typeof item.arguments === 'string')
          call.arguments = item.arguments
        calls.set(index, call)
        break
      }
      case 'response.function_call_arguments.delta': {
        const call = calls.get(index) ?? { name: '', arguments: '' }
        if (typeof e.delta === 'string') call.arguments += e.delta
        calls.set(index, call)
        break
      }
      case 'response.completed':
      case 'response.incomplete':
      case 'response.failed': {
        const response = asRecord(e.response)
        answer.finishReason = responseStatus(response)
        const error = asRecord(response.error)
        if (typeof error.message === 'string') answer.error = `response failed: ${error.message}`
        break
      }
      case 'error':
        answer.error = `stream error: ${str(e.message) ?? str(asRecord(e.error).message) ?? JSON.stringify(e)}`
        break
    }
  }
  answer.toolCalls = [...calls.entries()].sort(([a], [b]) => a - b).map(([, call]) => call)
}

function readAnthropicMessage(json: Json, answer: ModelAnswer): void {
  answer.model = str(json.model)
  for (const block of asArray(json.content)) {
    const b = asRecord(block)
    if (b.type === 'text' && typeof b.text === 'string') answer.text += b.text
    else if (b.type === 'tool_use') answer.toolCalls.push(toolCall(str(b.id), str(b.name), b.input))
  }
  answer.finishReason = str(json.stop_reason)
}

function readAnthropicStream(events: readonly StreamEvent[], answer: ModelAnswer): void {
  const blocks = new Map<number, { type: string; text: string; call?: AnswerToolCall }>()
  for (const { data } of events) {
    const e = asRecord(data)
    const index = typeof e.index === 'number' ? e.index : -1
    if (e.type === 'message_start') answer.model = str(asRecord(e.message).model)
    else if (e.type === 'content_block_start') {
      const b = asRecord(e.content_block)
      const type = str(b.type) ?? 'unknown'
      const block: { type: string; text: string; call?: AnswerToolCall } = { type, text: str(b.text) ?? '' }
      if (type === 'tool_use') block.call = toolCall(str(b.id), str(b.name), '')
      blocks.set(index, block)
    } else if (e.type === 'content_block_delta') {
      const block = blocks.get(index)
      const delta = asRecord(e.delta)
      if (!block) continue
      if (delta.type === 'text_delta' && typeof delta.text === 'string') block.text += delta.text
      if (delta.type === 'input_json_delta' && block.call && typeof delta.partial_json === 'string')
        block.call.arguments += delta.partial_json
    } else if (e.type === 'message_delta') {
      answer.finishReason = str(asRecord(e.delta).stop_reason) ?? answer.finishReason
    } else if (e.type === 'error') {
      const error = asRecord(e.error)
      answer.error = `stream error: ${str(error.type) ? `${str(error.type)}: ` : ''}${str(error.message) ?? ''}`
    }
  }
  for (const [, block] of [...blocks.entries()].sort(([a], [b]) => a - b)) {
    if (block.type === 'text') answer.text += block.text
    if (block.call) {
      // An empty input streams no input_json_delta; the tool was called with `{}`.
      if (block.call.arguments === '') block.call.arguments = '{}'
      answer.toolCalls.push(block.call)
    }
  }
}

function toolCall(id: string | undefined, name: string | undefined, args: unknown): AnswerToolCall {
  const call: AnswerToolCall = {
    name: name ?? '(unnamed)',
    arguments: typeof args === 'string' ? args : JSON.stringify(args ?? {}),
  }
  if (id !== undefined) call.id = id
  return call
}

/** Tool-call arguments on one line: compact JSON when they parse, the raw text otherwise. */
export function compactArguments(text: string): string {
  const parsed = parseJson(text)
  return parsed === undefined ? text : JSON.stringify(parsed)
}

function parseJson(text: string | undefined): unknown {
  if (text === undefined) return undefined
  try {
    return JSON.parse(text)
  } catch {
    return undefined
  }
}

export function asRecord(value: unknown): Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Json) : {}
}

export function asArray(value: unknown): unknown[] {
  return Array.isArray(value) ? value : []
}

function str(value: unknown): string | undefined {
  return typeof value === 'string' ? value : undefined
}
