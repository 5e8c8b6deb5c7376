import { type ModelCodec, numberAt, sortTools, withoutVolatile } from './codec.js'

/** Anthropic Messages (`POST …/v1/messages`). */
export const anthropicMessagesCodec: ModelCodec = {
  name: 'anthropic-messages',
  matches: (method, pathname) => method === 'POST' && /\/messages$/.test(pathname),
  canonicalBody: (body) =>
    sortTools(withoutVolatile(body), (tool) =>
      typeof tool.name === 'string' ? tool.name : (tool.type as string),
    ),
  errorBody: (message) => ({ type: 'error', error: { type: 'agent_tape_replay_miss', message } }),
  usage(body, events) {
    const direct = {
      input: numberAt(body, 'usage', 'input_tokens'),
      output: numberAt(body, 'usage', 'output_tokens'),
    }
    if (direct.input !== undefined && direct.output !== undefined)
      return direct as { input: number; output: number }
    // Streamed: input tokens arrive in message_start, the cumulative output count in message_delta.
    let input: number | undefined
    let output: number | undefined
    for (const event of events) {
      input = numberAt(event, 'message', 'usage', 'input_tokens') ?? input
      output = numberAt(event, 'usage', 'output_tokens') ?? output
    }
    return input !== undefined && output !== undefined ? { input, output } : undefined
  },
}
