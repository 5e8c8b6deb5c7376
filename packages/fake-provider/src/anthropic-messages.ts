import type { Endpoint, TurnContext } from './endpoint.js'
import type { IdFactory } from './ids.js'
import { splitJson } from './resolve-turn.js'
import { jsonEvent, type SseEvent } from './sse.js'
import type { HttpErrorFault } from './turn.js'

const STOP_REASON = {
  stop: 'end_turn',
  length: 'max_tokens',
  tool_calls: 'tool_use',
  content_filter: 'refusal',
}

const ERROR_TYPE: Record<number, string> = {
  400: 'invalid_request_error',
  401: 'authentication_error',
  403: 'permission_error',
  404: 'not_found_error',
  413: 'request_too_large',
  429: 'rate_limit_error',
  500: 'api_error',
  529: 'overloaded_error',
}

type Block = { type: 'text'; text: string } | { type: 'tool_use'; id: string; name: string; input: unknown }

function usage(ctx: TurnContext, outputTokens: number) {
  // Anthropic counts what the prompt cache read or wrote apart from `input_tokens`.
  const { inputTokens, cachedTokens = 0, cacheWriteTokens = 0 } = ctx.turn.usage
  return {
    input_tokens: inputTokens - cachedTokens - cacheWriteTokens,
    cache_creation_input_tokens: cacheWriteTokens,
    cache_read_input_tokens: cachedTokens,
    cache_creation: { ephemeral_5m_input_tokens: cacheWriteTokens, ephemeral_1h_input_tokens: 0 },
    output_tokens: outputTokens,
    service_tier: 'standard',
  }
}

/** Content blocks, each with the argument text a stream sends for it. */
function contentBlocks(ctx: TurnContext): Array<{ block: Block; json: string }> {
  const { turn, ids } = ctx
  const blocks: Array<{ block: Block; json: string }> = []
  if (turn.text !== '' || turn.toolCalls.length === 0)
    blocks.push({ block: { type: 'text', text: turn.text }, json: '' })
  for (const call of turn.toolCalls) {
    const id = call.id ?? `toolu_01${ids.base62(22)}`
    blocks.push({
      block: { type: 'tool_use', id, name: call.name, input: call.input },
      json: call.argumentsJson,
    })
  }
  return blocks
}

function message(ctx: TurnContext, content: Block[], final: boolean) {
  return {
    id: `msg_01${ctx.ids.base62(22)}`,
    type: 'message',
    role: 'assistant',
    model: ctx.model,
    content,
    stop_reason: final ? STOP_REASON[ctx.turn.finishReason] : null,
    stop_sequence: null,
    usage: usage(ctx, final ? ctx.turn.usage.outputTokens : 1),
  }
}

function blockEvents(
  ctx: TurnContext,
  { block, json }: { block: Block; json: string },
  index: number,
): SseEvent[] {
  const delta = (d: unknown) =>
    jsonEvent('content_block_delta', { type: 'content_block_delta', index, delta: d })
  const start =
    block.type === 'text'
      ? { type: 'text', text: '' }
      : { type: 'tool_use', id: block.id, name: block.name, input: {} }
  const out = [jsonEvent('content_block_start', { type: 'content_block_start', index, content_block: start })]
  // The API sends a ping early in the stream, serialized with a space; the SDK skips it.
  if (index === 0) out.push({ event: 'ping', data: '{"type": "ping"}' })
  if (block.type === 'text') {
    for (const text of ctx.turn.textDeltas) out.push(delta({ type: 'text_delta', text }))
  } else {
    for (const partial_json of ['', ...splitJson(json)])
      out.push(delta({ type: 'input_json_delta', partial_json }))
  }
  out.push(jsonEvent('content_block_stop', { type: 'content_block_stop', index }))
  return out
}

function events(ctx: TurnContext): SseEvent[] {
  const blocks = contentBlocks(ctx)
  const { cache_creation: _, service_tier: __, ...finalUsage } = usage(ctx, ctx.turn.usage.outputTokens)
  return [
    jsonEvent('message_start', { type: 'message_start', message: message(ctx, [], false) }),
    ...blocks.flatMap((block, index) => blockEvents(ctx, block, index)),
    jsonEvent('message_delta', {
      type: 'message_delta',
      delta: { stop_reason: STOP_REASON[ctx.turn.finishReason], stop_sequence: null },
      usage: finalUsage,
    }),
    jsonEvent('message_stop', { type: 'message_stop' }),
  ]
}

function errorBody(fault: HttpErrorFault, requestId: string): unknown {
  const type =
    fault.type ?? ERROR_TYPE[fault.status] ?? (fault.status >= 500 ? 'api_error' : 'invalid_request_error')
  return {
    type: 'error',
    error: { type, message: fault.message ?? type.replace(/_/g, ' ') },
    request_id: requestId,
  }
}

function responseHeaders(ids: IdFactory): Record<string, string> {
  return {
    'request-id': `req_011C${ids.base62(20)}`,
    'anthropic-organization-id': '00000000-0000-4000-8000-000000000000',
    'anthropic-ratelimit-requests-limit': '4000',
    'anthropic-ratelimit-requests-remaining': '3999',
  }
}

/** Anthropic Messages, `POST /v1/messages`. */
export const anthropicMessages: Endpoint = {
  name: 'anthropic-messages',
  matches: (path) => path === '/v1/messages',
  requestIdHeader: 'request-id',
  responseHeaders,
  json: (ctx) =>
    message(
      ctx,
      contentBlocks(ctx).map((planned) => planned.block),
      true,
    ),
  events,
  streamError: (fault) =>
    jsonEvent('error', {
      type: 'error',
      error: { type: fault.type ?? 'overloaded_error', message: fault.message ?? 'Overloaded' },
    }),
  errorBody,
}
