import { type ModelCodec, numberAt, postsTo, sortTools, tokenUsage, withoutVolatile } from './codec.js'
import {
  type AnswerToolCall,
  asArray,
  asRecord,
  byIndex,
  emptyAnswer,
  readMessagesRequest,
  str,
  toolCall,
} from './read.js'

const API_PATH = /\/chat\/completions$/

/**
 * OpenAI Chat Completions (`POST …/chat/completions`): OpenAI and Azure OpenAI, and the
 * providers that serve the same API (Mistral, Groq, xAI, DeepSeek, Together, Fireworks,
 * OpenRouter, Perplexity), as most OpenAI-compatible servers do.
 */
/** An Azure deployment's path, and the resource's path before it. */
const AZURE_DEPLOYMENT = /^(.*)\/openai\/deployments\/[^/]+\//

export const openaiChatCodec: ModelCodec = {
  name: 'openai-chat',
  hosts: [
    'api.openai.com',
    // Azure OpenAI resources: `<resource>.openai.azure.com`, and the AI Services and AI Foundry
    // endpoints that serve the same deployments.
    /\.openai\.azure\.com$/,
    /\.cognitiveservices\.azure\.com$/,
    /\.services\.ai\.azure\.com$/,
    'api.mistral.ai',
    'api.groq.com',
    'api.deepseek.com',
    'api.together.xyz',
    'api.fireworks.ai',
    'openrouter.ai',
    'api.x.ai',
    'api.perplexity.ai',
  ],
  baseUrlVariables: [
    {
      variable: 'OPENAI_BASE_URL',
      route: 'openai',
      upstream: 'https://api.openai.com/v1',
      readBy: 'the OpenAI SDKs (Python, Node, Go, Java, .NET), LiteLLM, the Agents SDK',
    },
    {
      variable: 'OPENAI_API_BASE',
      route: 'openai-api-base',
      upstream: 'https://api.openai.com/v1',
      readBy: 'openai-python before 1.0, LangChain',
    },
    {
      variable: 'AZURE_OPENAI_ENDPOINT',
      route: 'azure-openai',
      readBy: "the OpenAI SDKs' Azure clients; your resource's URL, taken over only when set",
    },
  ],
  keyVariables: [
    'OPENAI_API_KEY',
    'AZURE_OPENAI_API_KEY',
    'MISTRAL_API_KEY',
    'GROQ_API_KEY',
    'XAI_API_KEY',
    'DEEPSEEK_API_KEY',
    'OPENROUTER_API_KEY',
    'TOGETHER_API_KEY',
    'FIREWORKS_API_KEY',
    'PERPLEXITY_API_KEY',
  ],
  behaviourHeaders: ['openai-beta'],
  // The API's own models first, then those of the providers that serve it (by model name).
  priceProviders: [
    'openai',
    'azure',
    'mistral',
    'groq',
    'deepseek',
    'together',
    'fireworks',
    'x-ai',
    'perplexity',
    'openrouter',
  ],
  responseHeaders: ['openai-version', 'openai-processing-ms'],
  volatileFields: ['openai-processing-ms', 'system_fingerprint', 'obfuscation'],
  // Completions, tool calls, requests.
  idPrefixes: ['chatcmpl-', 'call_', 'req_'],
  apiPath: API_PATH,
  modelInPath: false,
  matches: postsTo(API_PATH),
  // Azure serves each deployment at `<resource>/openai/deployments/<name>/…`: declaring the
  // resource (the client's `endpoint`) covers all its deployments and API paths.
  basePath: (pathname) => AZURE_DEPLOYMENT.exec(pathname)?.[1] ?? pathname.replace(API_PATH, ''),
  canonicalBody: (body) =>
    sortTools(withoutVolatile(body), (tool) => {
      const fn = tool.function as { name?: unknown } | undefined
      return typeof fn?.name === 'string' ? fn.name : (tool.type as string | undefined)
    }),
  errorBody: (message) => ({
    error: { message, type: 'agent_tape_replay_miss', param: null, code: 'ERR_TAPE_MISS' },
  }),
  // `[DONE]` ends a stream, and so does an in-band error (the server closes after it).
  isLastEvent: ({ data }) => data === '[DONE]' || asRecord(data).error !== undefined,
  usage(body, events) {
    for (const source of [body, ...events]) {
      const input = numberAt(source, 'usage', 'prompt_tokens')
      const output = numberAt(source, 'usage', 'completion_tokens')
      // Cached tokens are part of the prompt's count.
      const cached = numberAt(source, 'usage', 'prompt_tokens_details', 'cached_tokens')
      // A model that hears or speaks (`gpt-4o-audio-preview`) counts its audio apart, at another price.
      const audio = {
        input: numberAt(source, 'usage', 'prompt_tokens_details', 'audio_tokens'),
        output: numberAt(source, 'usage', 'completion_tokens_details', 'audio_tokens'),
      }
      if (input !== undefined && output !== undefined) return tokenUsage(input, output, cached, 0, audio)
    }
    return undefined
  },
  readRequest({ body }) {
    const json = asRecord(body)
    return readMessagesRequest(json, asArray(json.messages))
  },
  readBody(body) {
    const json = asRecord(body)
    const answer = emptyAnswer()
    answer.model = str(json.model)
    const choice = asRecord(asArray(json.choices)[0])
    const message = asRecord(choice.message)
    answer.text = str(message.content) ?? ''
    for (const call of asArray(message.tool_calls)) {
      const fn = asRecord(asRecord(call).function)
      answer.toolCalls.push(toolCall(str(asRecord(call).id), str(fn.name), fn.arguments))
    }
    answer.finishReason = str(choice.finish_reason)
    return answer
  },
  readStream(events) {
    const answer = emptyAnswer()
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
    answer.toolCalls = byIndex(calls)
    return answer
  },
}
