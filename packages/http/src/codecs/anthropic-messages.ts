import { type ModelCodec, numberAt, postsTo, sortTools, tokenUsage, withoutVolatile } from './codec.js'
import {
  asArray,
  asRecord,
  contentText,
  emptyAnswer,
  type Json,
  readMessagesRequest,
  str,
  toolCall,
} from './read.js'

const API_PATH = /\/messages$/

/** Anthropic Messages (`POST …/v1/messages`). */
export const anthropicMessagesCodec: ModelCodec = {
  name: 'anthropic-messages',
  hosts: ['api.anthropic.com'],
  keyVariables: ['ANTHROPIC_API_KEY'],
  baseUrlVariables: [
    {
      variable: 'ANTHROPIC_BASE_URL',
      route: 'anthropic',
      upstream: 'https://api.anthropic.com',
      readBy: 'the Anthropic SDKs (Python, Node, Go, Java), Claude Code',
    },
  ],
  behaviourHeaders: ['anthropic-version', 'anthropic-beta'],
  priceProviders: ['anthropic'],
  responseHeaders: ['anthropic-ratelimit-'],
  volatileFields: ['anthropic-ratelimit-'],
  // Messages, tool uses, server tool uses, requests.
  idPrefixes: ['msg_', 'toolu_', 'srvtoolu_', 'req_'],
  apiPath: API_PATH,
  modelInPath: false,
  matches: postsTo(API_PATH),
  canonicalBody: (body) =>
    sortTools(withoutVolatile(body), (tool) =>
      typeof tool.name === 'string' ? tool.name : (tool.type as string),
    ),
  errorBody: (message) => ({ type: 'error', error: { type: 'agent_tape_replay_miss', message } }),
  isLastEvent: ({ data }) => {
    const type = asRecord(data).type
    return type === 'message_stop' || type === 'error'
  },
  usage(body, events) {
    const direct = cachedUsage(asRecord(asRecord(body).usage))
    if (direct.input !== undefined && direct.output !== undefined)
      return tokenUsage(direct.input, direct.output, direct.cached, direct.cacheWrite)
    // Streamed: input tokens arrive in message_start, the cumulative counts in message_delta.
    const counts: Partial<Record<keyof ReturnType<typeof cachedUsage>, number>> = {}
    for (const event of events) {
      const e = asRecord(event)
      for (const usage of [asRecord(asRecord(e.message).usage), asRecord(e.usage)]) {
        for (const [name, value] of Object.entries(cachedUsage(usage)))
          if (value !== undefined) counts[name as keyof typeof counts] = value
      }
    }
    const { input, output, cached, cacheWrite } = counts
    return input !== undefined && output !== undefined
      ? tokenUsage(input, output, cached, cacheWrite)
      : undefined
  },
  readRequest({ body }) {
    const json = asRecord(body)
    return readMessagesRequest(json, asArray(json.messages), describeBlock)
  },
  readBody(body) {
    const json = asRecord(body)
    const answer = emptyAnswer()
    answer.model = str(json.model)
    for (const block of asArray(json.content)) {
      const b = asRecord(block)
      if (b.type === 'text' && typeof b.text === 'string') answer.text += b.text
      else if (b.type === 'tool_use') answer.toolCalls.push(toolCall(str(b.id), str(b.name), b.input))
    }
    answer.finishReason = str(json.stop_reason)
    return answer
  },
  readStream(events) {
    const answer = emptyAnswer()
    const blocks = new Map<number, { type: string; text: string; call?: ReturnType<typeof toolCall> }>()
    for (const { data } of events) {
      const e = asRecord(data)
      const index = typeof e.index === 'number' ? e.index : -1
      if (e.type === 'message_start') answer.model = str(asRecord(e.message).model)
      else if (e.type === 'content_block_start') {
        const b = asRecord(e.content_block)
        const type = str(b.type) ?? 'unknown'
        const block: { type: string; text: string; call?: ReturnType<typeof toolCall> } = {
          type,
          text: str(b.text) ?? '',
        }
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
    return answer
  },
}

/**
 * An Anthropic usage object's counts: `input_tokens` leaves out what was read from or written to
 * the prompt cache, so the input here adds them.
 */
function cachedUsage(usage: Json): {
  input?: number
  output?: number
  cached?: number
  cacheWrite?: number
} {
  const fresh = numberAt(usage, 'input_tokens')
  const cached = numberAt(usage, 'cache_read_input_tokens')
  const cacheWrite = numberAt(usage, 'cache_creation_input_tokens')
  return {
    ...(fresh === undefined ? {} : { input: fresh + (cached ?? 0) + (cacheWrite ?? 0) }),
    ...(numberAt(usage, 'output_tokens') === undefined ? {} : { output: numberAt(usage, 'output_tokens') }),
    ...(cached === undefined ? {} : { cached }),
    ...(cacheWrite === undefined ? {} : { cacheWrite }),
  }
}

function describeBlock(part: Json): string | undefined {
  if (part.type === 'tool_result') return `tool_result: ${contentText(part.content, describeBlock)}`
  if (part.type === 'tool_use') return `tool_use ${String(part.name)}: ${JSON.stringify(part.input)}`
  return undefined
}
