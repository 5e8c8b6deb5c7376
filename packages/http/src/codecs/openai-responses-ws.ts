import { openaiResponsesCodec } from './openai-responses.js'
import { type AnswerParts, asArray, asRecord, emptyAnswer, type Json, str } from './read.js'
import { addUsage, type SessionCodec } from './session-codec.js'

/**
 * The Responses API's WebSocket mode (`wss://api.openai.com/v1/responses`, the `openai` SDK's
 * `ResponsesWS`): each `response.create` carries the body of a `POST /v1/responses` (less
 * `stream`), keyed as that body is, and the server answers with the events of its stream. So a
 * response reads, counts and is priced as one over HTTP; a `response.steer` adds input to the
 * response in flight. A miss is answered with an `error` event, which the SDK raises.
 */
export const openaiResponsesWsCodec: SessionCodec = {
  name: 'openai-responses-ws',
  matches: (url) => /\/responses$/.test(url.pathname),
  credentialQuery: ['api-key', 'api_key', 'key'],
  behaviourHeaders: openaiResponsesCodec.behaviourHeaders,
  credentialProtocols: ['openai-insecure-api-key.', 'openai-organization.', 'openai-project.'],
  canonicalMessage(message) {
    const type = str(message.type) ?? 'json'
    return {
      type,
      message: type === 'response.create' ? openaiResponsesCodec.canonicalBody(message) : message,
    }
  },
  missFrame: (message, code) => ({
    type: 'error',
    error: { type: 'invalid_request_error', code, message, param: null },
  }),
  readMessages(messages) {
    // One client message may be answered by several responses (a steer continues the one in
    // flight): each reads as a stream of its own, and the parts are joined.
    const answer: AnswerParts = emptyAnswer()
    let events: Json[] = []
    const readResponse = () => {
      if (events.length === 0) return
      const part = openaiResponsesCodec.readStream(events.map((data) => ({ data })))
      answer.text += part.text
      answer.toolCalls.push(...part.toolCalls)
      answer.model = part.model ?? answer.model
      if (part.finishReason) answer.finishReason = part.finishReason
      if (part.error) answer.error = part.error
      answer.usage = addUsage(answer.usage, openaiResponsesCodec.usage(undefined, events))
      events = []
    }
    for (const message of messages) {
      events.push(message)
      // A response ends over a WebSocket as its stream ends over HTTP.
      if (openaiResponsesCodec.isLastEvent?.({ data: message })) readResponse()
    }
    readResponse()
    return answer
  },
  readMessage(message) {
    const tools = asArray(message.tools).map((tool) => {
      const t = asRecord(tool)
      return str(t.name) ?? str(t.type) ?? '(tool)'
    })
    const input = message.type === 'response.steer' ? { input: message.input } : message
    const { last } = openaiResponsesCodec.readRequest({ body: input })
    return last ? { tools, last } : { tools }
  },
  // `generate: false` only prepares the conversation's state: the model writes nothing.
  asksModel: (message) => message.type === 'response.create' && message.generate !== false,
  modelOfUrl: () => undefined,
  // The client names the model in each `response.create`; the server in the response it starts.
  modelOf: (message) => str(message.model) ?? str(asRecord(message.response).model),
  priceProviders: openaiResponsesCodec.priceProviders,
  volatileFields: openaiResponsesCodec.volatileFields,
  idPrefixes: openaiResponsesCodec.idPrefixes,
}
