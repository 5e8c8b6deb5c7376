import { type ModelCodec, numberAt, postsTo, sortTools, tokenUsage, withoutVolatile } from './codec.js'
import {
  type AnswerToolCall,
  asArray,
  asRecord,
  byIndex,
  contentText,
  emptyAnswer,
  type Json,
  readMessagesRequest,
  str,
  toolCall,
} from './read.js'

/**
 * What the Amazon Bedrock Runtime APIs share (Converse here, InvokeModel in `bedrock-invoke.ts`):
 * the hosts, the credentials, the response headers and the error shape.
 */
export const BEDROCK_RUNTIME = {
  // Regional, FIPS, China and dual-stack endpoints.
  hosts: [/^bedrock-runtime(?:-fips)?\.[a-z0-9-]+\.(?:amazonaws\.com(?:\.cn)?|api\.aws)$/],
  // Requests are signed (SigV4); in replay the SDKs still sign, and need these to do it. With
  // them set, the default credential chain stops at the environment instead of asking the
  // instance metadata service. The region is not a credential: it stays the user's to give.
  keyVariables: [{ allOf: ['AWS_ACCESS_KEY_ID', 'AWS_SECRET_ACCESS_KEY'] }],
  baseUrlVariables: [
    {
      variable: 'AWS_ENDPOINT_URL_BEDROCK_RUNTIME',
      route: 'bedrock',
      readBy:
        'boto3, the AWS SDKs and CLI; taken over only when set, to an endpoint of your own: SigV4 signs the host, so AWS refuses a request signed for the gateway',
    },
  ],
  // The rest of the default credential chain: a profile, web identity, a container's role.
  otherCredentials: {
    variables: [
      'AWS_PROFILE',
      'AWS_SHARED_CREDENTIALS_FILE',
      'AWS_CONFIG_FILE',
      'AWS_WEB_IDENTITY_TOKEN_FILE',
      'AWS_CONTAINER_CREDENTIALS_RELATIVE_URI',
      'AWS_CONTAINER_CREDENTIALS_FULL_URI',
    ],
    files: ['~/.aws/credentials', '~/.aws/config'],
  },
  // The request id, the error type the SDK reads the exception class from, InvokeModel's own.
  responseHeaders: ['x-amzn-requestid', 'x-amzn-errortype', 'x-amzn-bedrock-'],
  // `p` pads every streamed event to a random length, so that sizes do not leak the text.
  volatileFields: ['x-amzn-requestid', 'x-amzn-bedrock-invocation-latency', 'latencyMs', 'p'],
  // Bedrock's error shape: the message in the body, the type in a header. A ValidationException
  // (400) is one the AWS SDK and Vercel `ai` do not retry.
  errorBody: (message: string) => ({ message }),
  errorHeaders: { 'x-amzn-errortype': 'ValidationException' },
  priceProviders: ['aws'],
} as const

/** The model id a Bedrock Runtime path names (`/model/anthropic.claude-…%3A0/converse`), decoded. */
export function modelInPath(path: string | undefined): string | undefined {
  const encoded = /\/model\/([^/]+)\/[^/]+$/.exec(path ?? '')?.[1]
  if (encoded === undefined) return undefined
  try {
    return decodeURIComponent(encoded)
  } catch {
    return encoded
  }
}

const API_PATH = /\/model\/[^/]+\/converse(?:-stream)?$/

/**
 * Amazon Bedrock Converse (`POST /model/{modelId}/converse` and `…/converse-stream`): one
 * request shape for every model on Bedrock. The model is in the path, which is keyed as sent.
 */
export const bedrockConverseCodec: ModelCodec = {
  name: 'bedrock-converse',
  ...BEDROCK_RUNTIME,
  behaviourHeaders: [],
  idPrefixes: ['tooluse_'],
  apiPath: API_PATH,
  modelInPath: true,
  pathWithModel: (pathname, model) =>
    pathname.replace(
      /\/model\/[^/]+\/(converse(?:-stream)?)$/,
      (_, method: string) => `/model/${encodeURIComponent(model)}/${method}`,
    ),
  matches: postsTo(API_PATH),
  canonicalBody(body) {
    // Metadata for logs and the service tier never change the answer.
    const json = withoutVolatile(body, ['requestMetadata', 'serviceTier']) as Json
    if (typeof json !== 'object' || json === null || typeof json.toolConfig !== 'object') return json
    return { ...json, toolConfig: sortTools(json.toolConfig, toolName) }
  },
  // `metadata` (the usage) follows `messageStop`; an exception ends a stream where it is.
  isLastEvent: ({ event }) => event === 'metadata' || event?.endsWith('Exception') === true,
  usage(body, events) {
    // The body's usage, or the stream's `metadata` event.
    for (const source of [body, ...events]) {
      const input = numberAt(source, 'usage', 'inputTokens')
      const output = numberAt(source, 'usage', 'outputTokens')
      // `inputTokens` leaves out what was read from or written to the prompt cache.
      const cached = numberAt(source, 'usage', 'cacheReadInputTokens') ?? 0
      const written = numberAt(source, 'usage', 'cacheWriteInputTokens') ?? 0
      if (input !== undefined && output !== undefined)
        return tokenUsage(input + cached + written, output, cached, written)
    }
    return undefined
  },
  readRequest({ path, body }) {
    const json = asRecord(body)
    const request = readMessagesRequest(json, asArray(json.messages), describeBlock)
    request.tools = asArray(asRecord(json.toolConfig).tools).filter((t) => asRecord(t).toolSpec).length
    const model = modelInPath(path)
    return model === undefined ? request : { ...request, model }
  },
  readBody(body) {
    const json = asRecord(body)
    const answer = emptyAnswer()
    for (const block of asArray(asRecord(asRecord(json.output).message).content)) {
      const b = asRecord(block)
      const use = asRecord(b.toolUse)
      if (typeof b.text === 'string') answer.text += b.text
      else if (b.toolUse) answer.toolCalls.push(toolCall(str(use.toolUseId), str(use.name), use.input))
    }
    answer.finishReason = str(json.stopReason)
    return answer
  },
  readStream(events) {
    const answer = emptyAnswer()
    const texts = new Map<number, string>()
    const calls = new Map<number, AnswerToolCall>()
    for (const { event, data } of events) {
      const e = asRecord(data)
      const index = typeof e.contentBlockIndex === 'number' ? e.contentBlockIndex : 0
      if (event === 'contentBlockStart') {
        const use = asRecord(asRecord(e.start).toolUse)
        if (use.name !== undefined) calls.set(index, toolCall(str(use.toolUseId), str(use.name), ''))
      } else if (event === 'contentBlockDelta') {
        const delta = asRecord(e.delta)
        const input = asRecord(delta.toolUse).input
        if (typeof delta.text === 'string') texts.set(index, (texts.get(index) ?? '') + delta.text)
        const call = calls.get(index)
        if (call && typeof input === 'string') call.arguments += input
      } else if (event === 'messageStop') answer.finishReason = str(e.stopReason)
      else if (event?.endsWith('Exception')) answer.error = `stream error: ${event}: ${str(e.message) ?? ''}`
    }
    answer.text = [...texts.entries()]
      .sort(([a], [b]) => a - b)
      .map(([, text]) => text)
      .join('')
    // A tool called without arguments streams no input; it was called with `{}`.
    answer.toolCalls = byIndex(calls).map((call) =>
      call.arguments === '' ? { ...call, arguments: '{}' } : call,
    )
    return answer
  },
}

/** Tools by the name of their spec (or system tool); a cache point by its kind. */
function toolName(tool: Json): string | undefined {
  return str(asRecord(tool.toolSpec).name) ?? str(asRecord(tool.systemTool).name) ?? Object.keys(tool)[0]
}

function describeBlock(part: Json): string | undefined {
  if (part.toolResult) return `toolResult: ${contentText(asRecord(part.toolResult).content, describeBlock)}`
  if (part.toolUse) {
    const use = asRecord(part.toolUse)
    return `toolUse ${String(use.name)}: ${JSON.stringify(use.input)}`
  }
  if (part.json !== undefined) return JSON.stringify(part.json)
  return undefined
}
