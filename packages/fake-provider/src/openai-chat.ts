import type { Endpoint, TurnContext } from './endpoint.js'
import { obfuscation, openaiErrorBody, openaiResponseHeaders } from './openai-common.js'
import { splitJson } from './resolve-turn.js'
import { jsonEvent, type SseEvent } from './sse.js'
import type { Usage } from './turn.js'

function chatUsage(usage: Usage) {
  return {
    prompt_tokens: usage.inputTokens,
    completion_tokens: usage.outputTokens,
    total_tokens: usage.inputTokens + usage.outputTokens,
    prompt_tokens_details: { cached_tokens: usage.cachedTokens ?? 0, audio_tokens: 0 },
    completion_tokens_details: {
      reasoning_tokens: 0,
      audio_tokens: 0,
      accepted_prediction_tokens: 0,
      rejected_prediction_tokens: 0,
    },
  }
}

function toolCallIds(ctx: TurnContext): string[] {
  return ctx.turn.toolCalls.map((call) => call.id ?? `call_${ctx.ids.base62(24)}`)
}

function envelope(ctx: TurnContext, object: string) {
  return {
    id: `chatcmpl-${ctx.ids.base62(29)}`,
    object,
    created: ctx.created,
    model: ctx.model,
  }
}

function json(ctx: TurnContext): unknown {
  const { turn } = ctx
  const ids = toolCallIds(ctx)
  const toolCalls = turn.toolCalls.map((call, i) => ({
    id: ids[i],
    type: 'function',
    function: { name: call.name, arguments: call.argumentsJson },
  }))
  return {
    ...envelope(ctx, 'chat.completion'),
    choices: [
      {
        index: 0,
        message: {
          role: 'assistant',
          content: turn.text === '' && toolCalls.length > 0 ? null : turn.text,
          refusal: null,
          annotations: [],
          ...(toolCalls.length > 0 ? { tool_calls: toolCalls } : {}),
        },
        logprobs: null,
        finish_reason: turn.finishReason,
      },
    ],
    usage: chatUsage(turn.usage),
    service_tier: 'default',
    system_fingerprint: `fp_${ctx.ids.hex(10)}`,
  }
}

/**
 * `data:`-only chunks sharing id/created/model/fingerprint, a finish chunk with an empty delta, the
 * usage-only chunk (`choices: []`) when `stream_options.include_usage` is set, then `data: [DONE]`.
 */
function events(ctx: TurnContext): SseEvent[] {
  const { turn, request, ids } = ctx
  const includeUsage = (request.body.stream_options as { include_usage?: boolean } | undefined)?.include_usage
  const head = { ...envelope(ctx, 'chat.completion.chunk'), service_tier: 'default' }
  const fingerprint = `fp_${ids.hex(10)}`
  const chunk = (delta: unknown, finishReason: string | null = null) =>
    jsonEvent(undefined, {
      ...head,
      system_fingerprint: fingerprint,
      choices: [{ index: 0, delta, logprobs: null, finish_reason: finishReason }],
      ...(includeUsage ? { usage: null } : {}),
      ...obfuscation(request.body, ids),
    })
  const out: SseEvent[] = []
  const callIds = toolCallIds(ctx)
  // The first delta carries the role: with the empty content of a text answer, or with the first tool call.
  const textFirst = turn.textDeltas.length > 0 || turn.toolCalls.length === 0
  if (textFirst) out.push(chunk({ role: 'assistant', content: '', refusal: null }))
  for (const delta of turn.textDeltas) out.push(chunk({ content: delta }))
  turn.toolCalls.forEach((call, index) => {
    const opening = !textFirst && index === 0 ? { role: 'assistant', content: null, refusal: null } : {}
    const header = {
      index,
      id: callIds[index],
      type: 'function',
      function: { name: call.name, arguments: '' },
    }
    out.push(chunk({ ...opening, tool_calls: [header] }))
    for (const part of splitJson(call.argumentsJson)) {
      out.push(chunk({ tool_calls: [{ index, function: { arguments: part } }] }))
    }
  })
  out.push(chunk({}, turn.finishReason))
  if (includeUsage) {
    out.push(
      jsonEvent(undefined, {
        ...head,
        system_fingerprint: fingerprint,
        choices: [],
        usage: chatUsage(turn.usage),
        ...obfuscation(request.body, ids),
      }),
    )
  }
  out.push({ data: '[DONE]' })
  return out
}

/**
 * OpenAI Chat Completions, `POST /v1/chat/completions`, under any prefix: Azure's v1 path
 * (`/openai/v1/…`), gateways (`/api/v1/…`) and compatible servers serve the same API.
 */
export const openaiChat: Endpoint = {
  name: 'openai-chat',
  matches: (path) => path.endsWith('/chat/completions'),
  requestIdHeader: 'x-request-id',
  responseHeaders: openaiResponseHeaders,
  json,
  events,
  // The SDK throws APIError for any data object carrying `error`; there is no `event:` line.
  streamError: (fault) =>
    jsonEvent(undefined, openaiErrorBody({ status: 500, type: fault.type, message: fault.message })),
  errorBody: openaiErrorBody,
}
