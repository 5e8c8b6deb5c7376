import { type ModelCodec, numberAt, postsTo, sortTools, tokenUsage, withoutVolatile } from './codec.js'
import {
  type AnswerToolCall,
  asArray,
  asRecord,
  byIndex,
  emptyAnswer,
  type Json,
  readMessagesRequest,
  str,
  toolCall,
} from './read.js'

const API_PATH = /\/responses$/

/** OpenAI Responses (`POST …/responses`), on OpenAI and Azure OpenAI. */
/** The events a Responses stream ends with. */
const RESPONSES_FINAL = new Set(['response.completed', 'response.failed', 'response.incomplete', 'error'])

export const openaiResponsesCodec: ModelCodec = {
  name: 'openai-responses',
  hosts: [
    'api.openai.com',
    /\.openai\.azure\.com$/,
    /\.cognitiveservices\.azure\.com$/,
    /\.services\.ai\.azure\.com$/,
  ],
  keyVariables: ['OPENAI_API_KEY', 'AZURE_OPENAI_API_KEY'],
  behaviourHeaders: ['openai-beta'],
  priceProviders: ['openai', 'azure'],
  responseHeaders: ['openai-version', 'openai-processing-ms'],
  // A response's `completed_at` (its `created_at` is masked for every API) changes on every recording.
  volatileFields: ['openai-processing-ms', 'obfuscation', 'completed_at'],
  // Responses, output messages, function calls, reasoning, web searches, custom tool calls.
  idPrefixes: ['resp_', 'msg_', 'fc_', 'call_', 'rs_', 'ws_', 'ctc_', 'req_'],
  apiPath: API_PATH,
  modelInPath: false,
  matches: postsTo(API_PATH),
  canonicalBody: (body) =>
    sortTools(withoutVolatile(body), (tool) =>
      typeof tool.name === 'string' ? tool.name : (tool.type as string),
    ),
  errorBody: (message) => ({
    error: { message, type: 'agent_tape_replay_miss', param: null, code: 'ERR_TAPE_MISS' },
  }),
  // No `[DONE]`: the stream ends with the response's final state, or an error.
  isLastEvent: ({ data }) => RESPONSES_FINAL.has(str(asRecord(data).type) ?? ''),
  usage(body, events) {
    for (const source of [body, ...events.map((e) => (e as { response?: unknown }).response)]) {
      const input = numberAt(source, 'usage', 'input_tokens')
      const output = numberAt(source, 'usage', 'output_tokens')
      // Cached tokens are part of the input's count.
      const cached = numberAt(source, 'usage', 'input_tokens_details', 'cached_tokens')
      if (input !== undefined && output !== undefined) return tokenUsage(input, output, cached)
    }
    return undefined
  },
  readRequest({ body }) {
    const json = asRecord(body)
    const items =
      typeof json.input === 'string' ? [{ role: 'user', content: json.input }] : asArray(json.input)
    return readMessagesRequest(json, items)
  },
  readBody(body) {
    const json = asRecord(body)
    const answer = emptyAnswer()
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
    return answer
  },
  readStream(events) {
    const answer = emptyAnswer()
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
    answer.toolCalls = byIndex(calls)
    return answer
  },
}

function responseStatus(json: Json): string | undefined {
  const status = str(json.status)
  const reason = str(asRecord(json.incomplete_details).reason)
  return status && reason ? `${status} (${reason})` : status
}
