import { type TokenUsage, tokenUsage } from './codec.js'
import { type AnswerParts, asArray, asRecord, emptyAnswer, type Json, str, toolCall } from './read.js'
import { addUsage, digestField, num, type SessionCodec } from './session-codec.js'

/** Text deltas, in the GA event names and the beta ones. */
const TEXT_DELTAS = new Set(['response.output_text.delta', 'response.text.delta'])
/** What a spoken answer says, when it has no text deltas. */
const TRANSCRIPT_DELTAS = new Set([
  'response.output_audio_transcript.delta',
  'response.audio_transcript.delta',
])

/**
 * OpenAI Realtime (`wss://api.openai.com/v1/realtime?model=…`, the `openai` SDK's
 * `OpenAIRealtimeWS` and `OpenAIRealtimeWebSocket`, Azure's `…/openai/realtime`): JSON events,
 * the client's `event_id` left out of the key, the audio of `input_audio_buffer.append` keyed
 * by its digest; a miss is answered with an `error` event, which the SDK raises.
 */
export const openaiRealtimeCodec: SessionCodec = {
  name: 'openai-realtime',
  matches: (url) => /\/realtime$/.test(url.pathname),
  credentialQuery: ['api-key', 'api_key', 'key'],
  behaviourHeaders: ['openai-beta'],
  // Browsers cannot set headers: the key travels as a subprotocol.
  credentialProtocols: ['openai-insecure-api-key.', 'openai-organization.', 'openai-project.'],
  canonicalMessage(message) {
    const { event_id: _id, ...rest } = message
    const type = str(rest.type) ?? 'json'
    return { type, message: type === 'input_audio_buffer.append' ? digestField(rest, 'audio') : rest }
  },
  missFrame: (message, code) => ({
    type: 'error',
    error: { type: 'invalid_request_error', code, message, param: null, event_id: null },
  }),
  readMessages(messages) {
    const answer: AnswerParts = emptyAnswer()
    let transcript = ''
    for (const message of messages) {
      const type = str(message.type) ?? ''
      if (TEXT_DELTAS.has(type)) answer.text += str(message.delta) ?? ''
      else if (TRANSCRIPT_DELTAS.has(type)) transcript += str(message.delta) ?? ''
      else if (type === 'response.function_call_arguments.done')
        answer.toolCalls.push(toolCall(str(message.call_id), str(message.name), message.arguments))
      else if (type === 'response.done') {
        const response = asRecord(message.response)
        const status = str(response.status)
        if (status) answer.finishReason = status
        answer.usage = addUsage(answer.usage, readUsage(asRecord(response.usage)))
      } else if (type === 'error') answer.error = errorText(asRecord(message.error))
    }
    if (answer.text === '') answer.text = transcript
    return answer
  },
  readMessage(message) {
    const tools = asArray(asRecord(message.session).tools).map((tool) => str(asRecord(tool).name) ?? '(tool)')
    const item = asRecord(message.item)
    if (message.type !== 'conversation.item.create') return { tools }
    if (item.type === 'function_call_output')
      return { tools, last: { role: 'tool', text: str(item.output) ?? '' } }
    const text = asArray(item.content)
      .map((part) => str(asRecord(part).text) ?? str(asRecord(part).transcript) ?? '')
      .join('')
    return { tools, last: { role: str(item.role) ?? 'user', text } }
  },
  // With server-side voice detection the server starts responses itself; the client asks with this.
  asksModel: (message) => message.type === 'response.create',
  modelOfUrl: (url) => url.searchParams.get('model') ?? undefined,
  // `session.created` and `session.updated` name the model that answers; `session.update` may ask for one.
  modelOf: (message) =>
    SESSION_EVENTS.has(str(message.type) ?? '') ? str(asRecord(message.session).model) : undefined,
  priceProviders: ['openai', 'azure'],
  volatileFields: ['event_id', 'expires_at'],
  idPrefixes: ['event_', 'sess_', 'item_', 'resp_', 'conv_'],
}

const SESSION_EVENTS = new Set(['session.created', 'session.updated', 'session.update'])

/** A response's `usage`: its input tokens (the cached ones among them) and output tokens, with their audio. */
function readUsage(usage: Json): TokenUsage | undefined {
  const input = num(usage.input_tokens)
  const output = num(usage.output_tokens)
  if (input === undefined && output === undefined) return undefined
  const inputDetails = asRecord(usage.input_token_details)
  return tokenUsage(input ?? 0, output ?? 0, num(inputDetails.cached_tokens) ?? 0, 0, {
    input: num(inputDetails.audio_tokens),
    output: num(asRecord(usage.output_token_details).audio_tokens),
    cached: num(asRecord(inputDetails.cached_tokens_details).audio_tokens),
  })
}

function errorText(error: Json): string {
  const kind = str(error.type) ?? str(error.code)
  return `${kind ? `${kind}: ` : ''}${str(error.message) ?? 'error'}`
}
