import {
  bedrockErrorBody,
  bedrockErrorHeaders,
  bedrockPath,
  bedrockResponseHeaders,
  bedrockStreamError,
  modelOf,
  padding,
} from './bedrock-runtime.js'
import type { Endpoint, TurnContext } from './endpoint.js'
import { EVENTSTREAM_WIRE, type EventMessage, eventMessage } from './eventstream.js'
import { splitJson } from './resolve-turn.js'

const STOP_REASON = {
  stop: 'end_turn',
  length: 'max_tokens',
  tool_calls: 'tool_use',
  content_filter: 'content_filtered',
}

function toolUseIds(ctx: TurnContext): string[] {
  return ctx.turn.toolCalls.map((call) => call.id ?? `tooluse_${ctx.ids.base62(22)}`)
}

function usage(ctx: TurnContext) {
  // Bedrock counts what the prompt cache read or wrote apart from `inputTokens`.
  const { inputTokens, outputTokens, cachedTokens = 0, cacheWriteTokens = 0 } = ctx.turn.usage
  return {
    ...(cachedTokens > 0 ? { cacheReadInputTokens: cachedTokens } : {}),
    ...(cacheWriteTokens > 0 ? { cacheWriteInputTokens: cacheWriteTokens } : {}),
    inputTokens: inputTokens - cachedTokens - cacheWriteTokens,
    outputTokens,
    totalTokens: inputTokens + outputTokens,
  }
}

const latencyMs = (ctx: TurnContext) => 100 + (Number.parseInt(ctx.ids.hex(3), 16) % 900)

/** The Converse answer; Bedrock writes its fields in alphabetical order. */
function json(ctx: TurnContext): unknown {
  const { turn } = ctx
  const ids = toolUseIds(ctx)
  const content: unknown[] = []
  if (turn.text !== '' || turn.toolCalls.length === 0) content.push({ text: turn.text })
  turn.toolCalls.forEach((call, i) => {
    content.push({ toolUse: { input: call.input, name: call.name, toolUseId: ids[i] } })
  })
  return {
    metrics: { latencyMs: latencyMs(ctx) },
    output: { message: { content, role: 'assistant' } },
    stopReason: STOP_REASON[turn.finishReason],
    usage: usage(ctx),
  }
}

/**
 * messageStart, the text deltas of block 0, each tool use as a contentBlockStart with its
 * input in string deltas, messageStop, then metadata with the usage; each padded with `p`.
 */
function events(ctx: TurnContext): EventMessage[] {
  const { turn, ids } = ctx
  const p = () => padding(ids)
  const out = [eventMessage('messageStart', { p: p(), role: 'assistant' })]
  let index = 0
  if (turn.textDeltas.length > 0) {
    for (const text of turn.textDeltas)
      out.push(eventMessage('contentBlockDelta', { contentBlockIndex: index, delta: { text }, p: p() }))
    out.push(eventMessage('contentBlockStop', { contentBlockIndex: index, p: p() }))
    index++
  }
  const callIds = toolUseIds(ctx)
  turn.toolCalls.forEach((call, i) => {
    const start = { toolUse: { name: call.name, toolUseId: callIds[i] } }
    out.push(eventMessage('contentBlockStart', { contentBlockIndex: index, p: p(), start }))
    for (const input of splitJson(call.argumentsJson))
      out.push(
        eventMessage('contentBlockDelta', {
          contentBlockIndex: index,
          delta: { toolUse: { input } },
          p: p(),
        }),
      )
    out.push(eventMessage('contentBlockStop', { contentBlockIndex: index, p: p() }))
    index++
  })
  out.push(eventMessage('messageStop', { p: p(), stopReason: STOP_REASON[turn.finishReason] }))
  out.push(eventMessage('metadata', { metrics: { latencyMs: latencyMs(ctx) }, p: p(), usage: usage(ctx) }))
  return out
}

/** Amazon Bedrock Converse, `POST /model/{modelId}/converse` and `/converse-stream`. */
export const bedrockConverse: Endpoint = {
  name: 'bedrock-converse',
  matches: (path) => /^(converse|converse-stream)$/.test(bedrockPath(path)?.operation ?? ''),
  wantsStream: (request) => bedrockPath(request.path)?.operation === 'converse-stream',
  modelOf,
  wire: EVENTSTREAM_WIRE,
  requestIdHeader: 'x-amzn-requestid',
  responseHeaders: bedrockResponseHeaders,
  json,
  events,
  streamError: bedrockStreamError,
  errorBody: bedrockErrorBody,
  errorHeaders: bedrockErrorHeaders,
}
