import type { Endpoint, TurnContext } from './endpoint.js'
import { obfuscation, openaiErrorBody, openaiResponseHeaders } from './openai-common.js'
import { splitJson } from './resolve-turn.js'
import { jsonEvent, type SseEvent } from './sse.js'

type Item = Record<string, unknown> & { id: string; type: string }

function usage(ctx: TurnContext) {
  const { inputTokens, outputTokens, cachedTokens = 0 } = ctx.turn.usage
  return {
    input_tokens: inputTokens,
    input_tokens_details: { cached_tokens: cachedTokens },
    output_tokens: outputTokens,
    output_tokens_details: { reasoning_tokens: 0 },
    total_tokens: inputTokens + outputTokens,
  }
}

function outputItems(ctx: TurnContext): Item[] {
  const { turn, ids } = ctx
  const items: Item[] = []
  if (turn.text !== '' || turn.toolCalls.length === 0) {
    const part = { type: 'output_text', annotations: [], logprobs: [], text: turn.text }
    items.push({
      id: `msg_${ids.hex(48)}`,
      type: 'message',
      status: 'completed',
      content: [part],
      role: 'assistant',
    })
  }
  for (const call of turn.toolCalls) {
    items.push({
      id: `fc_${ids.hex(48)}`,
      type: 'function_call',
      status: 'completed',
      arguments: call.argumentsJson,
      call_id: call.id ?? `call_${ids.base62(24)}`,
      name: call.name,
    })
  }
  return items
}

/** The `response` object; request settings are echoed back as the API does. */
function responseObject(ctx: TurnContext, id: string, final: boolean, output: Item[]) {
  const body = ctx.request.body
  const reason = { length: 'max_output_tokens', content_filter: 'content_filter' } as Record<string, string>
  const incomplete = final ? reason[ctx.turn.finishReason] : undefined
  return {
    id,
    object: 'response',
    created_at: ctx.created,
    status: final ? (incomplete ? 'incomplete' : 'completed') : 'in_progress',
    background: false,
    error: null,
    incomplete_details: incomplete ? { reason: incomplete } : null,
    instructions: body.instructions ?? null,
    max_output_tokens: body.max_output_tokens ?? null,
    model: ctx.model,
    output,
    parallel_tool_calls: body.parallel_tool_calls ?? true,
    previous_response_id: body.previous_response_id ?? null,
    reasoning: { effort: null, summary: null },
    service_tier: final ? 'default' : 'auto',
    store: body.store ?? true,
    temperature: body.temperature ?? 1,
    text: body.text ?? { format: { type: 'text' }, verbosity: 'medium' },
    tool_choice: body.tool_choice ?? 'auto',
    tools: body.tools ?? [],
    top_p: body.top_p ?? 1,
    truncation: body.truncation ?? 'disabled',
    usage: final ? usage(ctx) : null,
    user: null,
    metadata: body.metadata ?? {},
  }
}

function itemEvents(ctx: TurnContext, item: Item, output_index: number): Record<string, unknown>[] {
  const pad = () => obfuscation(ctx.request.body, ctx.ids)
  const item_id = item.id
  if (item.type === 'function_call') {
    const args = item.arguments as string
    return [
      {
        type: 'response.output_item.added',
        output_index,
        item: { ...item, status: 'in_progress', arguments: '' },
      },
      ...splitJson(args).map((delta) => ({
        type: 'response.function_call_arguments.delta',
        item_id,
        output_index,
        delta,
        ...pad(),
      })),
      { type: 'response.function_call_arguments.done', item_id, output_index, arguments: args },
      { type: 'response.output_item.done', output_index, item },
    ]
  }
  const part = { type: 'output_text', annotations: [], logprobs: [], text: ctx.turn.text }
  const at = { item_id, output_index, content_index: 0 }
  return [
    {
      type: 'response.output_item.added',
      output_index,
      item: { ...item, status: 'in_progress', content: [] },
    },
    { type: 'response.content_part.added', ...at, part: { ...part, text: '' } },
    ...ctx.turn.textDeltas.map((delta) => ({
      type: 'response.output_text.delta',
      ...at,
      delta,
      logprobs: [],
      ...pad(),
    })),
    { type: 'response.output_text.done', ...at, text: ctx.turn.text, logprobs: [] },
    { type: 'response.content_part.done', ...at, part },
    { type: 'response.output_item.done', output_index, item },
  ]
}

/** Named events with a running `sequence_number`; no `[DONE]`: the stream ends with the final event. */
function events(ctx: TurnContext): SseEvent[] {
  const id = `resp_${ctx.ids.hex(48)}`
  const items = outputItems(ctx)
  const final = responseObject(ctx, id, true, items)
  const payloads = [
    { type: 'response.created', response: responseObject(ctx, id, false, []) },
    { type: 'response.in_progress', response: responseObject(ctx, id, false, []) },
    ...items.flatMap((item, index) => itemEvents(ctx, item, index)),
    { type: final.status === 'completed' ? 'response.completed' : 'response.incomplete', response: final },
  ]
  return payloads.map((p, sequence_number) => jsonEvent(p.type as string, { ...p, sequence_number }))
}

/** OpenAI Responses, `POST /v1/responses`, under any prefix (Azure's `/openai/responses` and `/openai/v1/responses`). */
export const openaiResponses: Endpoint = {
  name: 'openai-responses',
  matches: (path) => path.endsWith('/responses'),
  requestIdHeader: 'x-request-id',
  responseHeaders: openaiResponseHeaders,
  json: (ctx) => responseObject(ctx, `resp_${ctx.ids.hex(48)}`, true, outputItems(ctx)),
  events,
  // The nested `error` object is what makes openai-node throw an APIError for this event.
  streamError: (fault, sent) => {
    const { error } = openaiErrorBody({ status: 500, type: fault.type, message: fault.message }) as {
      error: object
    }
    return jsonEvent('error', { type: 'error', error, sequence_number: sent })
  },
  errorBody: openaiErrorBody,
}
