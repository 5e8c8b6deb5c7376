import type { Endpoint, StreamWire, TurnContext } from './endpoint.js'
import type { ReceivedRequest } from './received-request.js'
import type { HttpErrorFault, StreamErrorFault } from './turn.js'

const FINISH_REASON = {
  stop: 'STOP',
  length: 'MAX_TOKENS',
  // Gemini ends a turn that calls functions with STOP too.
  tool_calls: 'STOP',
  content_filter: 'SAFETY',
}

/** The canonical gRPC status of an HTTP status, as Google's error bodies name it. */
const STATUS: Record<number, string> = {
  400: 'INVALID_ARGUMENT',
  401: 'UNAUTHENTICATED',
  403: 'PERMISSION_DENIED',
  404: 'NOT_FOUND',
  429: 'RESOURCE_EXHAUSTED',
  500: 'INTERNAL',
  503: 'UNAVAILABLE',
  504: 'DEADLINE_EXCEEDED',
}

const MESSAGE: Record<string, string> = {
  INVALID_ARGUMENT: 'Request contains an invalid argument.',
  UNAUTHENTICATED: 'Request had invalid authentication credentials.',
  PERMISSION_DENIED: 'The caller does not have permission',
  NOT_FOUND: 'Requested entity was not found.',
  RESOURCE_EXHAUSTED: 'Resource has been exhausted (e.g. check quota).',
  INTERNAL:
    'An internal error has occurred. Please retry or report in https://developers.generativeai.google/guide/troubleshooting',
  UNAVAILABLE: 'The model is overloaded. Please try again later.',
  DEADLINE_EXCEEDED: 'The request timed out. Please try again.',
}

/** Which API a request went to: the Gemini API, or Vertex AI (which adds times and traffic types). */
type Flavour = 'gemini-api' | 'vertex'

/** Google answers in pretty-printed JSON, with a newline at the end. */
const prettyJson = (payload: unknown) => `${JSON.stringify(payload, null, 2)}\n`

/** Stream chunks are one line, spaced as Google's serializer does it: `{"a": 1,"b": [2,3]}`. */
export function googleJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(googleJson).join(',')}]`
  if (typeof value === 'object' && value !== null)
    return `{${Object.entries(value)
      .filter(([, v]) => v !== undefined)
      .map(([k, v]) => `${JSON.stringify(k)}: ${googleJson(v)}`)
      .join(',')}}`
  return JSON.stringify(value)
}

const MODEL_ACTION = /\/(?:models|tunedModels)\/([^/:]+):(generateContent|streamGenerateContent)$/

function modelOf(request: ReceivedRequest): string | undefined {
  const model = MODEL_ACTION.exec(request.path)?.[1]
  return model === undefined ? undefined : decodeURIComponent(model)
}

/** `…:streamGenerateContent?alt=sse` streams events; without `alt=sse` it answers a JSON array. */
function wantsStream(request: ReceivedRequest): boolean {
  return (
    request.path.endsWith(':streamGenerateContent') &&
    new URLSearchParams(request.search).get('alt') === 'sse'
  )
}

function parts(ctx: TurnContext): unknown[] {
  const out: unknown[] = []
  if (ctx.turn.text !== '' || ctx.turn.toolCalls.length === 0) out.push({ text: ctx.turn.text })
  out.push(...functionCallParts(ctx))
  return out
}

/** A thinking model signs its first function call; the SDKs send the signature back with it. */
function functionCallParts(ctx: TurnContext): unknown[] {
  return ctx.turn.toolCalls.map((call, i) => ({
    functionCall: { ...(call.id === undefined ? {} : { id: call.id }), name: call.name, args: call.input },
    ...(i === 0 ? { thoughtSignature: `${ctx.ids.base62(40)}==` } : {}),
  }))
}

function usageMetadata(ctx: TurnContext, flavour: Flavour, final: boolean) {
  const { inputTokens, outputTokens } = ctx.turn.usage
  const prompt = { promptTokensDetails: [{ modality: 'TEXT', tokenCount: inputTokens }] }
  if (!final)
    return flavour === 'vertex'
      ? { trafficType: 'ON_DEMAND' }
      : { promptTokenCount: inputTokens, totalTokenCount: inputTokens, ...prompt }
  const cached = ctx.turn.usage.cachedTokens ?? 0
  return {
    promptTokenCount: inputTokens,
    ...(cached > 0 ? { cachedContentTokenCount: cached } : {}),
    candidatesTokenCount: outputTokens,
    totalTokenCount: inputTokens + outputTokens,
    ...(flavour === 'vertex' ? { trafficType: 'ON_DEMAND' } : {}),
    ...prompt,
    candidatesTokensDetails: [{ modality: 'TEXT', tokenCount: outputTokens }],
  }
}

/** One GenerateContentResponse: the whole answer, or one chunk of a stream. */
function response(
  ctx: TurnContext,
  flavour: Flavour,
  content: unknown[],
  final: boolean,
  head: { responseId: string; createTime: string },
) {
  return {
    candidates: [
      {
        content: { role: 'model', parts: content },
        ...(final ? { finishReason: FINISH_REASON[ctx.turn.finishReason] } : {}),
      },
    ],
    usageMetadata: usageMetadata(ctx, flavour, final),
    modelVersion: ctx.model,
    ...(flavour === 'vertex' ? { createTime: head.createTime } : {}),
    responseId: head.responseId,
  }
}

/** The chunks of a streamed answer: a text delta each, the function calls in one, the last one final. */
function chunks(ctx: TurnContext, flavour: Flavour) {
  const head = {
    responseId: ctx.ids.base62(23),
    createTime: new Date(ctx.created * 1000).toISOString().replace('Z', '123Z'),
  }
  const contents: unknown[][] = ctx.turn.textDeltas.map((text) => [{ text }])
  if (ctx.turn.toolCalls.length > 0) contents.push(functionCallParts(ctx))
  if (contents.length === 0) contents.push([{ text: '' }])
  return contents.map((content, i) => response(ctx, flavour, content, i === contents.length - 1, head))
}

function json(ctx: TurnContext, flavour: Flavour): unknown {
  if (ctx.request.path.endsWith(':streamGenerateContent')) return chunks(ctx, flavour)
  const head = {
    responseId: ctx.ids.base62(23),
    createTime: new Date(ctx.created * 1000).toISOString().replace('Z', '123Z'),
  }
  return response(ctx, flavour, parts(ctx), true, head)
}

/**
 * Server-sent events, `data:` only; Vertex ends its lines with `\r\n`. A string is written as
 * it is (an error body, outside any event).
 */
function sseWire(eol: string): StreamWire {
  return {
    contentType: 'text/event-stream',
    encode: (event) =>
      typeof event === 'string' ? event : `data: ${(event as { data: string }).data}${eol}${eol}`,
  }
}

/**
 * A failure mid-stream: Google writes the JSON error body into the stream, pretty-printed and
 * outside any event, then ends it. `@google/genai` reads it as an ApiError.
 */
function streamError(fault: StreamErrorFault): string {
  const status = fault.type ?? 'UNAVAILABLE'
  const code = Number(Object.entries(STATUS).find(([, s]) => s === status)?.[0] ?? 503)
  return prettyJson({ error: { code, message: fault.message ?? MESSAGE[status] ?? status, status } })
}

function errorBody(fault: HttpErrorFault): unknown {
  const status = fault.type ?? STATUS[fault.status] ?? (fault.status >= 500 ? 'INTERNAL' : 'INVALID_ARGUMENT')
  return { error: { code: fault.status, message: fault.message ?? MESSAGE[status] ?? status, status } }
}

function responseHeaders(): Record<string, string> {
  return {
    server: 'scaffolding on HTTPServer2',
    'server-timing': 'gfet4t7; dur=327',
    vary: 'Origin, X-Origin, Referer',
    'x-content-type-options': 'nosniff',
    'x-frame-options': 'SAMEORIGIN',
    'x-xss-protection': '0',
  }
}

function endpoint(name: string, flavour: Flavour, path: RegExp): Endpoint {
  return {
    name,
    matches: (p) => path.test(p),
    wantsStream,
    modelOf,
    wire: sseWire(flavour === 'vertex' ? '\r\n' : '\n'),
    // Google sends no request id header; errors carry none either.
    requestIdHeader: 'x-request-id',
    responseHeaders,
    json: (ctx) => json(ctx, flavour),
    jsonText: prettyJson,
    events: (ctx) => chunks(ctx, flavour).map((chunk) => ({ data: googleJson(chunk) })),
    streamError,
    errorBody,
  }
}

/** The Gemini API: `POST /v1beta/models/{model}:generateContent`, `…:streamGenerateContent?alt=sse`. */
export const geminiApi: Endpoint = endpoint(
  'gemini',
  'gemini-api',
  /^\/v1(?:beta|alpha)?\/(?:models|tunedModels)\/[^/:]+:(?:generateContent|streamGenerateContent)$/,
)

/**
 * Vertex AI's Gemini models: `POST /v1/projects/{p}/locations/{l}/publishers/google/models/{model}:…`,
 * and the same without project and location (express mode, an API key).
 */
export const vertexGemini: Endpoint = endpoint(
  'gemini-vertex',
  'vertex',
  /^\/v1(?:beta1)?\/(?:projects\/[^/]+\/locations\/[^/]+\/)?publishers\/google\/models\/[^/:]+:(?:generateContent|streamGenerateContent)$/,
)
