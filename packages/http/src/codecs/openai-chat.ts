import { type ModelCodec, numberAt, sortTools, withoutVolatile } from './codec.js'

/** OpenAI Chat Completions (`POST …/chat/completions`), also used by most OpenAI-compatible servers. */
export const openaiChatCodec: ModelCodec = {
  name: 'openai-chat',
  matches: (method, pathname) => method === 'POST' && /\/chat\/completions$/.test(pathname),
  canonicalBody: (body) =>
    sortTools(withoutVolatile(body), (tool) => {
      const fn = tool.function as { name?: unknown } | undefined
      return typeof fn?.name === 'string' ? fn.name : (tool.type as string | undefined)
    }),
  errorBody: (message) => ({
    error: { message, type: 'agent_tape_replay_miss', param: null, code: 'ERR_TAPE_MISS' },
  }),
  usage(body, events) {
    for (const source of [body, ...events]) {
      const input = numberAt(source, 'usage', 'prompt_tokens')
      const output = numberAt(source, 'usage', 'completion_tokens')
      if (input !== undefined && output !== undefined) return { input, output }
    }
    return undefined
  },
}
