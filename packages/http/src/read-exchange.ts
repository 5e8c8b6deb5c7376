import { addDecisionLabels, describeDecision } from '@agent-tape/core/internal'
import type { TokenUsage } from './codecs/codec.js'
import { codecByName, sessionCodecByName } from './codecs/index.js'
import {
  asRecord,
  emptyAnswer,
  type Json,
  type ModelAnswer,
  type ModelRequest,
  parseJson,
} from './codecs/read.js'
import { bodyJson, isRecordedResponse, type RecordedResponse, type StreamEnd } from './recorded-response.js'
import { streamEvents } from './streams/index.js'
import { recordedUsage } from './usage.js'
import { readSessionDecision } from './websocket/read-session.js'
import { SESSION_KIND } from './websocket/session-ends.js'

/**
 * Reads a recorded model response (`out` of an `llm` decision, `in.api` naming its codec),
 * whatever its API and whether it was streamed; `undefined` when it is not one.
 */
export function readModelAnswer(input: unknown, out: unknown): ModelAnswer | undefined {
  if (!isRecordedResponse(out)) return undefined
  const codec = codecByName(String(asRecord(input).api))
  const answer: ModelAnswer = { status: out.status, streamed: false, text: '', toolCalls: [] }
  const body = out.body
  const events = streamEvents(body)
  const whole = bodyJson(body)
  if (events) {
    answer.streamed = true
    Object.assign(answer, codec?.readStream(events) ?? emptyAnswer())
    const end = (body as { end?: StreamEnd }).end
    if (end) answer.error ??= `stream cut off: ${end.error.name}: ${end.error.message}`
  } else if (whole) {
    const json = asRecord(whole.json)
    if (out.status >= 400 || json.error) answer.error = errorText(out, json)
    else Object.assign(answer, codec?.readBody(whole.json) ?? emptyAnswer())
  } else if (body && 'text' in body && out.status >= 400) {
    answer.error = `${out.status}: ${body.text}`
  }
  for (const field of ['model', 'finishReason', 'error'] as const) {
    if (answer[field] === undefined) delete answer[field]
  }
  const usage = recordedUsage(input, out)
  if (usage) answer.usage = usage
  return answer
}

/** The tokens of one recorded model answer, with the API and model they are priced by. */
export interface RecordedModelUsage {
  /** The codec's name (`openai-chat`, …). */
  api: string
  /** The model that answered as the answer names it, else the one the request asked for. */
  model?: string
  usage: TokenUsage
  /** Where the price table looks the model up (see {@link ModelCodec.priceProviders}). */
  priceProviders: readonly string[]
}

/**
 * The token usage of a recorded model decision with its model, for costs; `undefined` when the
 * decision is not a model exchange a codec reads, or its answer reports no usage.
 */
export function recordedModelUsage(input: unknown, out: unknown): RecordedModelUsage | undefined {
  const api = asRecord(input).api
  const codec = typeof api === 'string' ? codecByName(api) : undefined
  if (!codec) return sessionUsage(input, out)
  const usage = recordedUsage(input, out)
  if (!codec || !usage) return undefined
  const model = readModelAnswer(input, out)?.model ?? readModelRequest(input).model
  return {
    api: codec.name,
    ...(model === undefined ? {} : { model }),
    usage,
    priceProviders: codec.priceProviders,
  }
}

/**
 * The tokens of one message of a WebSocket session, as its codec reads them from the server's
 * frames (a Realtime `response.done`'s `usage`, a Live `usageMetadata`), with the model the
 * session ran, which the recording keeps on each decision (the URL, `setup` or `session.created`
 * names it once).
 */
function sessionUsage(input: unknown, out: unknown): RecordedModelUsage | undefined {
  const read = readSessionDecision(input, out)
  const codec = read?.request.api === undefined ? undefined : sessionCodecByName(read.request.api)
  if (!read?.answer.usage || !codec) return undefined
  const model = read.request.model
  return {
    api: codec.name,
    ...(model === undefined ? {} : { model }),
    usage: read.answer.usage,
    priceProviders: codec.priceProviders,
  }
}

/**
 * Whether a recorded decision asked a model for an answer: a model request (`llm`), or a
 * session's message that asked for a response (see `SessionCodec.asksModel`), whose decision
 * started a step. What counts as a step, and what a drift run holds to its budget.
 */
export function isModelRequest(kind: string, input: unknown): boolean {
  if (kind === 'llm') return true
  if (kind !== SESSION_KIND) return false
  const { api, message } = asRecord(input)
  const codec = typeof api === 'string' ? sessionCodecByName(api) : undefined
  return codec !== undefined && message !== undefined && codec.asksModel(asRecord(message))
}

/** What a recorded model request (`in` of an `llm` decision) asked, in a few words. */
export function readModelRequest(input: unknown): ModelRequest {
  const record = asRecord(input)
  const request: ModelRequest = { messages: 0, tools: 0 }
  for (const field of ['api', 'method', 'path'] as const) {
    if (typeof record[field] === 'string') request[field] = record[field] as string
  }
  const codec = codecByName(String(record.api))
  if (!codec) return request
  const path = typeof record.path === 'string' ? record.path : undefined
  return { ...request, ...codec.readRequest({ ...(path === undefined ? {} : { path }), body: record.body }) }
}

/** The label of a model request a codec reads: `model request (gpt-4o)`; `undefined` for others. */
function modelRequestLabel(kind: string, input: unknown): string | undefined {
  if (kind !== 'llm' || !codecByName(String(asRecord(input).api))) return undefined
  const model = readModelRequest(input).model
  return model === undefined ? 'model request' : `model request (${model})`
}

/** A WebSocket session's decision by its frame and API: `websocket session.update (openai-realtime)`. */
function sessionFrameLabel(kind: string, input: unknown): string | undefined {
  const { api, frame } = asRecord(input)
  if (kind !== SESSION_KIND || typeof frame !== 'string' || typeof api !== 'string') return undefined
  return `websocket ${frame} (${api})`
}

/** A short label for a decision: core's, with the model of a model request read by its codec. */
export function describeHttpDecision(kind: string, input: unknown): string {
  return modelRequestLabel(kind, input) ?? sessionFrameLabel(kind, input) ?? describeDecision(kind, input)
}

let labelsAdded = false

/**
 * Has every report that names a decision label model requests by their model, read by each
 * provider's codec. Called by each way of installing the HTTP boundary, and by the CLI.
 */
export function useCodecLabels(): void {
  if (labelsAdded) return
  labelsAdded = true
  addDecisionLabels(modelRequestLabel)
  addDecisionLabels(sessionFrameLabel)
}

function errorText(out: RecordedResponse, json: Json): string {
  // Some APIs answer `{ "error": "message" }`.
  if (typeof json.error === 'string') return `${out.status} ${json.error}`
  const error = asRecord(json.error)
  // `type` in most APIs; a gRPC status name (`RESOURCE_EXHAUSTED`) in Google's.
  const kind = error.type ?? error.status
  const type = typeof kind === 'string' ? `${kind}: ` : ''
  // `{ error: { type, message } }` for most APIs, `{ message }` for some.
  const message =
    typeof error.message === 'string'
      ? error.message
      : typeof json.message === 'string'
        ? json.message
        : JSON.stringify(json)
  return `${out.status} ${type}${message}`
}

/** Tool-call arguments on one line: compact JSON when they parse, the raw text otherwise. */
export function compactArguments(text: string): string {
  const parsed = parseJson(text)
  return parsed === undefined ? text : JSON.stringify(parsed)
}
