import { type ModelCodec, numberAt, sortTools, withoutVolatile } from './codec.js'

/** OpenAI Responses (`POST …/responses`). */
export const openaiResponsesCodec: ModelCodec = {
  name: 'openai-responses',
  matches: (method, pathname) => method === 'POST' && /\/responses$/.test(pathname),
  canonicalBody: (body) =>
    sortTools(withoutVolatile(body), (tool) =>
      typeof tool.name === 'string' ? tool.name : (tool.type as string),
    ),
  errorBody: (message) => ({
    error: { message, type: 'agent_tape_replay_miss', param: null, code: 'ERR_TAPE_MISS' },
  }),
  usage(body, events) {
    for (const source of [body, ...events.map((e) => (e as { response?: unknown }).response)]) {
      const input = numberAt(source, 'usage', 'input_tokens')
      const output = numberAt(source, 'usage', 'output_tokens')
      if (input !== undefined && output !== undefined) return { input, output }
    }
    return undefined
  },
}
