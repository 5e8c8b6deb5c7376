import type { Endpoint } from './endpoint.js'
import type { IdFactory } from './ids.js'
import { openaiChat } from './openai-chat.js'
import { openaiResponseHeaders } from './openai-common.js'
import { jsonEvent, type SseEvent } from './sse.js'

const SAFE = { filtered: false, severity: 'safe' }
/** What Azure's content filters say of a prompt or an answer that passed them. */
const FILTER_RESULTS = { hate: SAFE, self_harm: SAFE, sexual: SAFE, violence: SAFE }
const PROMPT_FILTER_RESULTS = [{ prompt_index: 0, content_filter_results: FILTER_RESULTS }]

type Choice = Record<string, unknown> & { delta?: Record<string, unknown>; finish_reason?: unknown }

/** Adds Azure's filter results to a choice: none yet on the opening and closing deltas of a stream. */
function filtered(choice: Choice): Choice {
  const bare =
    choice.delta !== undefined && (choice.delta.role !== undefined || choice.finish_reason !== null)
  return { ...choice, content_filter_results: bare ? {} : FILTER_RESULTS }
}

function azureHeaders(ids: IdFactory): Record<string, string> {
  const requestId = `${ids.hex(8)}-${ids.hex(4)}-${ids.hex(4)}-${ids.hex(4)}-${ids.hex(12)}`
  return {
    ...openaiResponseHeaders(ids),
    'apim-request-id': requestId,
    'x-ms-region': 'Sweden Central',
    'azureml-model-session': 'd123-20250101000000',
  }
}

/**
 * Azure OpenAI Chat Completions on a deployment, `POST /openai/deployments/{deployment}/chat/completions`:
 * OpenAI's answer with the content filter results Azure adds (on the body, on each choice, and as a
 * first stream chunk with no choices, no id and no model).
 */
export const azureOpenaiChat: Endpoint = {
  ...openaiChat,
  name: 'azure-openai-chat',
  matches: (path) => /^\/openai\/deployments\/[^/]+\/chat\/completions$/.test(path),
  responseHeaders: azureHeaders,
  json(ctx) {
    const body = openaiChat.json(ctx) as Record<string, unknown> & { choices: Choice[] }
    return { ...body, choices: body.choices.map(filtered), prompt_filter_results: PROMPT_FILTER_RESULTS }
  },
  events(ctx) {
    const first = jsonEvent(undefined, {
      choices: [],
      created: 0,
      id: '',
      model: '',
      object: '',
      prompt_filter_results: PROMPT_FILTER_RESULTS,
    })
    const rest = (openaiChat.events(ctx) as SseEvent[]).map((event) => {
      if (event.data === '[DONE]') return event
      const chunk = JSON.parse(event.data) as { choices: Choice[] }
      return jsonEvent(undefined, { ...chunk, choices: chunk.choices.map(filtered) })
    })
    return [first, ...rest]
  },
}
