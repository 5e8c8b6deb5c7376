import {
  type AudioTokens,
  type ModelCodec,
  numberAt,
  postsTo,
  type TokenUsage,
  tokenUsage,
  withoutVolatile,
} from './codec.js'
import { asArray, asRecord, contentText, emptyAnswer, type Json, str, toolCall } from './read.js'

/**
 * `…/models/{model}:generateContent`, tuned models (`tunedModels/…`, Vertex `endpoints/…`)
 * included; the model is the first group.
 */
const MODEL_PATH = /\/(?:models|tunedModels|endpoints)\/([^/:]+):(?:generateContent|streamGenerateContent)$/
// The same path from its API version on, Vertex's project and location included: what comes
// before it is the base URL a client is given (`…/v1beta/models/…` on the Gemini API,
// `…/v1/projects/{p}/locations/{l}/publishers/google/models/…` on Vertex AI).
const API_PATH =
  /(?:\/v\d[\w.]*)?(?:\/projects\/[^/]+\/locations\/[^/]+(?:\/publishers\/[^/]+)?)?\/(?:models|tunedModels|endpoints)\/[^/:]+:(?:generateContent|streamGenerateContent)$/

/**
 * Google Gemini (`POST …/models/{model}:generateContent`, `…:streamGenerateContent?alt=sse`), on
 * the Gemini API and on Vertex AI (`…/projects/{p}/locations/{l}/publishers/google/models/…`).
 * The model is named by the path, which is in the key; the API key travels as `?key=` or the
 * `x-goog-api-key` header, Vertex's token as `Authorization`, and none of them is keyed or stored.
 */
export const geminiCodec: ModelCodec = {
  name: 'gemini',
  hosts: [
    'generativelanguage.googleapis.com',
    'aiplatform.googleapis.com',
    /^[a-z0-9-]+-aiplatform\.googleapis\.com$/,
  ],
  // `@google/genai` reads either of the first two (and warns when both are set); `@ai-sdk/google`
  // reads the third.
  keyVariables: [{ oneOf: ['GOOGLE_API_KEY', 'GEMINI_API_KEY'] }, 'GOOGLE_GENERATIVE_AI_API_KEY'],
  baseUrlVariables: [
    {
      variable: 'GOOGLE_GEMINI_BASE_URL',
      route: 'gemini',
      upstream: 'https://generativelanguage.googleapis.com',
      readBy: 'google-genai (Python) and @google/genai',
    },
  ],
  behaviourHeaders: [],
  // The Gemini API's prices; Vertex AI's are the same per token.
  priceProviders: ['google'],
  responseHeaders: [],
  // The id and time of one answer, and the signature of the model's thoughts it asks to get back.
  volatileFields: ['responseId', 'createTime', 'thoughtSignature'],
  // Gemini's ids carry no prefix.
  idPrefixes: [],
  apiPath: API_PATH,
  modelInPath: true,
  pathWithModel: (pathname, model) =>
    pathname.replace(
      /\/(models|tunedModels|endpoints)\/[^/:]+:(generateContent|streamGenerateContent)$/,
      (_, kind: string, method: string) => `/${kind}/${encodeURIComponent(model)}:${method}`,
    ),
  matches: postsTo(API_PATH),
  // Vertex's `labels` are for billing reports; they do not decide the answer.
  canonicalBody: (body) => numberCallIds(sortFunctionDeclarations(withoutVolatile(body, ['labels']))),
  errorBody: (message) => ({
    error: {
      code: 400,
      message,
      status: 'FAILED_PRECONDITION',
      details: [
        {
          '@type': 'type.googleapis.com/google.rpc.ErrorInfo',
          reason: 'AGENT_TAPE_REPLAY_MISS',
          domain: 'agent-tape',
          metadata: { code: 'ERR_TAPE_MISS' },
        },
      ],
    },
  }),
  usage(body, events) {
    // A stream's usageMetadata is a running total: the last one counts.
    let usage: TokenUsage | undefined
    for (const source of [body, ...events]) usage = usageOf(source) ?? usage
    return usage
  },
  readRequest({ path, body }) {
    const json = asRecord(body)
    const contents = asArray(json.contents)
    const request: ReturnType<ModelCodec['readRequest']> = {
      messages: contents.length,
      tools: asArray(json.tools).reduce<number>((n, tool) => n + toolCount(asRecord(tool)), 0),
    }
    const model = path === undefined ? undefined : MODEL_PATH.exec(path)?.[1]
    if (model !== undefined) request.model = model
    if (contents.length > 0) {
      const last = asRecord(contents.at(-1))
      request.last = { role: str(last.role) ?? 'user', text: contentText(last.parts, describePart) }
    }
    return request
  },
  readBody(body) {
    const answer = emptyAnswer()
    addChunk(answer, asRecord(body))
    return answer
  },
  readStream(events) {
    const answer = emptyAnswer()
    for (const { data } of events) addChunk(answer, asRecord(data))
    return answer
  },
}

/**
 * Function declarations sorted by name within each tool, and the tools by their first
 * declaration (built-in tools, `{ googleSearch: {} }`, by their kind), so the order a program
 * declares its functions in does not change the key.
 */
function sortFunctionDeclarations(body: unknown): unknown {
  const record = asRecord(body)
  if (!Array.isArray(record.tools)) return body
  const tools = record.tools.map((tool) => {
    const t = asRecord(tool)
    if (!Array.isArray(t.functionDeclarations)) return tool
    return { ...t, functionDeclarations: [...t.functionDeclarations].sort(byName) }
  })
  return { ...record, tools: tools.sort((a, b) => compare(toolName(a), toolName(b))) }
}

/**
 * Function call ids replaced by the order they first appear in (`call-1`, `call-2`, …). The API
 * often answers calls without ids; a client then makes up a random one (the ai SDK does) and
 * sends it back with the call and with its response, so the same run would never key the same.
 * Numbering keeps which response answers which call.
 */
function numberCallIds(body: unknown): unknown {
  const record = asRecord(body)
  if (!Array.isArray(record.contents)) return body
  const ids = new Map<string, string>()
  const number = (part: Json, field: 'functionCall' | 'functionResponse'): Json => {
    const inner = asRecord(part[field])
    if (typeof inner.id !== 'string') return part
    if (!ids.has(inner.id)) ids.set(inner.id, `call-${ids.size + 1}`)
    return { ...part, [field]: { ...inner, id: ids.get(inner.id) } }
  }
  const contents = record.contents.map((content) => {
    const c = asRecord(content)
    if (!Array.isArray(c.parts)) return content
    const parts = c.parts.map((part) =>
      typeof part === 'object' && part !== null
        ? number(number(part as Json, 'functionCall'), 'functionResponse')
        : part,
    )
    return { ...c, parts }
  })
  return { ...record, contents }
}

function toolName(tool: unknown): string {
  const t = asRecord(tool)
  const first = asRecord(asArray(t.functionDeclarations)[0])
  return str(first.name) ?? Object.keys(t)[0] ?? ''
}

const byName = (a: unknown, b: unknown) => compare(str(asRecord(a).name) ?? '', str(asRecord(b).name) ?? '')
const compare = (x: string, y: string) => (x < y ? -1 : x > y ? 1 : 0)

/** A tool object holds function declarations, or is one built-in tool. */
function toolCount(tool: Json): number {
  const declarations = asArray(tool.functionDeclarations).length
  const others = Object.keys(tool).filter((key) => key !== 'functionDeclarations').length
  return declarations + others
}

/**
 * Input tokens are the prompt's (cached content included); output tokens are the answer's and
 * the model's thoughts, which are billed as output.
 */
function usageOf(source: unknown): TokenUsage | undefined {
  const input = numberAt(source, 'usageMetadata', 'promptTokenCount')
  if (input === undefined) return undefined
  const answer = numberAt(source, 'usageMetadata', 'candidatesTokenCount') ?? 0
  const thoughts = numberAt(source, 'usageMetadata', 'thoughtsTokenCount') ?? 0
  const cached = numberAt(source, 'usageMetadata', 'cachedContentTokenCount')
  return tokenUsage(input, answer + thoughts, cached, 0, audioOf(asRecord(asRecord(source).usageMetadata)))
}

/**
 * The audio among a `usageMetadata`'s tokens, from its counts by modality (`promptTokensDetails`,
 * `candidatesTokensDetails` or a Live session's `responseTokensDetails`, `cacheTokensDetails`).
 */
export function audioOf(usage: Json): AudioTokens {
  const audio = (details: unknown) =>
    asArray(details).reduce<number>((n, detail) => {
      const { modality, tokenCount } = asRecord(detail)
      return modality === 'AUDIO' && typeof tokenCount === 'number' ? n + tokenCount : n
    }, 0)
  return {
    input: audio(usage.promptTokensDetails),
    output: audio(usage.candidatesTokensDetails) + audio(usage.responseTokensDetails),
    cached: audio(usage.cacheTokensDetails),
  }
}

/** Adds one response (a whole body, or one chunk of a stream) to the answer. */
function addChunk(answer: ReturnType<typeof emptyAnswer>, chunk: Json): void {
  answer.model = str(chunk.modelVersion) ?? answer.model
  const error = asRecord(chunk.error)
  if (chunk.error !== undefined) {
    const status = str(error.status)
    answer.error = `stream error: ${status ? `${status}: ` : ''}${str(error.message) ?? JSON.stringify(chunk.error)}`
  }
  const candidate = asRecord(asArray(chunk.candidates)[0])
  for (const part of asArray(asRecord(candidate.content).parts)) {
    const p = asRecord(part)
    // Thought summaries are the model's reasoning, not its answer.
    if (typeof p.text === 'string' && p.thought !== true) answer.text += p.text
    const call = asRecord(p.functionCall)
    if (p.functionCall !== undefined) answer.toolCalls.push(toolCall(str(call.id), str(call.name), call.args))
  }
  const blocked = str(asRecord(chunk.promptFeedback).blockReason)
  answer.finishReason = str(candidate.finishReason) ?? (blocked ? `blocked: ${blocked}` : answer.finishReason)
}

function describePart(part: Json): string | undefined {
  const call = asRecord(part.functionCall)
  if (part.functionCall !== undefined)
    return `functionCall ${String(call.name)}: ${JSON.stringify(call.args ?? {})}`
  const response = asRecord(part.functionResponse)
  if (part.functionResponse !== undefined)
    return `functionResponse ${String(response.name)}: ${JSON.stringify(response.response ?? {})}`
  const data = asRecord(part.inlineData ?? part.fileData)
  if (typeof data.mimeType === 'string') return `[${data.mimeType}]`
  return undefined
}
