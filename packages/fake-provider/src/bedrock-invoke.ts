import { anthropicMessages } from './anthropic-messages.js'
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
import type { SseEvent } from './sse.js'

/** Claude on Bedrock names its messages and tool uses `msg_bdrk_…` and `toolu_bdrk_…`. */
const onBedrock = (json: string) => json.replace(/"(msg|toolu)_01/g, '"$1_bdrk_01')

/**
 * The events of Anthropic's stream, each in a `chunk` whose `bytes` are the event's JSON in
 * base64; no ping, and the last one carries Bedrock's invocation metrics.
 */
function events(ctx: TurnContext): EventMessage[] {
  const sse = (anthropicMessages.events(ctx) as SseEvent[]).filter((e) => e.event !== 'ping')
  return sse.map((event, i) => {
    let data = onBedrock(event.data)
    if (i === sse.length - 1) {
      const metrics = {
        inputTokenCount: ctx.turn.usage.inputTokens,
        outputTokenCount: ctx.turn.usage.outputTokens,
        invocationLatency: 640,
        firstByteLatency: 210,
      }
      data = JSON.stringify({ ...JSON.parse(data), 'amazon-bedrock-invocationMetrics': metrics })
    }
    return eventMessage('chunk', { bytes: Buffer.from(data, 'utf8').toString('base64'), p: padding(ctx.ids) })
  })
}

/**
 * Amazon Bedrock InvokeModel, `POST /model/{modelId}/invoke` and `/invoke-with-response-stream`,
 * answering as Claude does there: Anthropic's Messages body and events.
 */
export const bedrockInvoke: Endpoint = {
  name: 'bedrock-invoke',
  matches: (path) => /^(invoke|invoke-with-response-stream)$/.test(bedrockPath(path)?.operation ?? ''),
  wantsStream: (request) => bedrockPath(request.path)?.operation === 'invoke-with-response-stream',
  modelOf,
  wire: EVENTSTREAM_WIRE,
  requestIdHeader: 'x-amzn-requestid',
  responseHeaders: (ids) => ({ ...bedrockResponseHeaders(ids), 'x-amzn-bedrock-invocation-latency': '640' }),
  json: (ctx) => JSON.parse(onBedrock(JSON.stringify(anthropicMessages.json(ctx)))),
  events,
  streamError: bedrockStreamError,
  errorBody: bedrockErrorBody,
  errorHeaders: bedrockErrorHeaders,
}
