import { type ModelCodec, numberAt, postsTo, sortTools, withoutVolatile } from './codec.js'
import {
  type AnswerParts,
  asArray,
  asRecord,
  emptyAnswer,
  type Json,
  readMessagesRequest,
  str,
  toolCall,
} from './read.js'

const API_PATH = /\/api\/(?:chat|generate)$/

/**
 * Ollama's native API (`POST …/api/chat`, `POST …/api/generate`), streamed as newline-delimited
 * JSON unless the body says `"stream": false`. Served on loopback (`127.0.0.1:11434`, which a user
 * declares in `modelEndpoints`) and by `ollama.com` for cloud models. Ollama's OpenAI-compatible
 * `/v1/chat/completions` is read by the OpenAI chat codec.
 */
export const ollamaCodec: ModelCodec = {
  name: 'ollama',
  hosts: ['ollama.com'],
  // The `ollama` client sends it as a bearer token to https://ollama.com only.
  keyVariables: ['OLLAMA_API_KEY'],
  baseUrlVariables: [
    {
      variable: 'OLLAMA_HOST',
      route: 'ollama',
      readBy:
        'the Ollama clients (Python, JavaScript); taken over only when set, since `ollama serve` reads it as the address to listen on',
    },
  ],
  behaviourHeaders: [],
  // Models run on the user's machine (or Ollama's cloud, priced by plan): no price per token.
  priceProviders: [],
  responseHeaders: [],
  volatileFields: ['created_at', 'total_duration', 'load_duration', 'prompt_eval_duration', 'eval_duration'],
  // Tool calls (recent servers give each one an id).
  idPrefixes: ['call_'],
  apiPath: API_PATH,
  modelInPath: false,
  matches: postsTo(API_PATH),
  // `keep_alive` says how long the server keeps the model loaded after the call: it changes the
  // memory of the machine, never the answer, and is often set per environment.
  canonicalBody: (body) =>
    sortTools(withoutVolatile(body, ['keep_alive']), (tool) => {
      const fn = tool.function as { name?: unknown } | undefined
      return typeof fn?.name === 'string' ? fn.name : (tool.type as string | undefined)
    }),
  errorBody: (message) => ({ error: message }),
  // The `ollama` client stops reading at `done: true`; an error line ends a stream too.
  isLastEvent: ({ data }) => asRecord(data).done === true || typeof asRecord(data).error === 'string',
  usage(body, events) {
    // Counts come with the last object, `done: true`; Go leaves out a count of zero.
    for (const source of [body, ...events]) {
      if (asRecord(source).done !== true) continue
      const input = numberAt(source, 'prompt_eval_count')
      const output = numberAt(source, 'eval_count')
      if (input === undefined && output === undefined) return undefined
      return { input: input ?? 0, output: output ?? 0 }
    }
    return undefined
  },
  readRequest({ path, body }) {
    const json = asRecord(body)
    if (path?.endsWith('/api/generate') || (json.messages === undefined && 'prompt' in json)) {
      const prompt = [{ role: 'user', content: str(json.prompt) ?? '' }]
      return readMessagesRequest(json, prompt)
    }
    return readMessagesRequest(json, asArray(json.messages))
  },
  readBody(body) {
    const answer = emptyAnswer()
    readChunk(answer, asRecord(body))
    return answer
  },
  readStream(events) {
    const answer = emptyAnswer()
    for (const { data } of events) readChunk(answer, asRecord(data))
    return answer
  },
}

/** Adds one object (a whole answer, or one line of a stream) to the answer read so far. */
function readChunk(answer: AnswerParts, chunk: Json): void {
  if (typeof chunk.error === 'string') answer.error = `stream error: ${chunk.error}`
  answer.model = str(chunk.model) ?? answer.model
  // /api/generate answers in `response`, /api/chat in `message`.
  if (typeof chunk.response === 'string') answer.text += chunk.response
  const message = asRecord(chunk.message)
  if (typeof message.content === 'string') answer.text += message.content
  // Each tool call arrives whole, with its arguments as an object.
  for (const call of asArray(message.tool_calls)) {
    const fn = asRecord(asRecord(call).function)
    answer.toolCalls.push(toolCall(str(asRecord(call).id), str(fn.name), fn.arguments))
  }
  if (chunk.done === true) answer.finishReason = str(chunk.done_reason) ?? answer.finishReason
}
