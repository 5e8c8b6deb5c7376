import { anthropicMessagesCodec } from './anthropic-messages.js'
import { BEDROCK_RUNTIME, modelInPath } from './bedrock-converse.js'
import { type ModelCodec, numberAt, postsTo, tokenUsage } from './codec.js'
import { asRecord, parseJson, type StreamEvent, str } from './read.js'

const API_PATH = /\/model\/[^/]+\/invoke(?:-with-response-stream)?$/

/**
 * Amazon Bedrock InvokeModel (`POST /model/{modelId}/invoke` and
 * `…/invoke-with-response-stream`): the model's own request and answer, wrapped. Apart from
 * Converse because nothing else is shared: the body is the model's native one (Anthropic's
 * Messages with `anthropic_version` for Claude, read as such), and a stream's events arrive as
 * `chunk` messages whose `bytes` are the model's own JSON events.
 */
export const bedrockInvokeCodec: ModelCodec = {
  name: 'bedrock-invoke',
  ...BEDROCK_RUNTIME,
  // Guardrails and tracing change the answer; they travel as headers here, in the body for Converse.
  behaviourHeaders: [
    'x-amzn-bedrock-guardrailidentifier',
    'x-amzn-bedrock-guardrailversion',
    'x-amzn-bedrock-trace',
    'x-amzn-bedrock-performanceconfig-latency',
  ],
  // Claude's message and tool-use ids on Bedrock.
  idPrefixes: ['msg_bdrk_', 'toolu_bdrk_'],
  apiPath: API_PATH,
  modelInPath: true,
  pathWithModel: (pathname, model) =>
    pathname.replace(
      /\/model\/[^/]+\/(invoke(?:-with-response-stream)?)$/,
      (_, method: string) => `/model/${encodeURIComponent(model)}/${method}`,
    ),
  matches: postsTo(API_PATH),
  // Volatile fields dropped and tools sorted by name, as for Anthropic's own API.
  canonicalBody: (body) => anthropicMessagesCodec.canonicalBody(body),
  // Bedrock adds its own count to every model's last chunk; an exception ends a stream where it is.
  isLastEvent: ({ event, data }) =>
    event?.endsWith('Exception') === true ||
    (event === 'chunk' && asRecord(chunkOf(data))['amazon-bedrock-invocationMetrics'] !== undefined),
  usage(body, events) {
    const direct = anthropicMessagesCodec.usage(body, events.map(chunkOf))
    if (direct) return direct
    // Every model's last chunk carries Bedrock's own count.
    for (const event of events) {
      const metrics = asRecord(chunkOf(event))['amazon-bedrock-invocationMetrics']
      const input = numberAt(metrics, 'inputTokenCount')
      const output = numberAt(metrics, 'outputTokenCount')
      if (input !== undefined && output !== undefined) return tokenUsage(input, output)
    }
    return undefined
  },
  readRequest({ path, body }) {
    const request = anthropicMessagesCodec.readRequest({ body })
    const json = asRecord(body)
    // Models that take a prompt rather than messages (Llama, Mistral, Titan).
    const prompt = str(json.prompt) ?? str(json.inputText)
    if (request.messages === 0 && prompt !== undefined)
      Object.assign(request, { messages: 1, last: { role: 'user', text: prompt } })
    const model = modelInPath(path)
    return model === undefined ? request : { ...request, model }
  },
  readBody: (body) => anthropicMessagesCodec.readBody(body),
  readStream(events) {
    const chunks: StreamEvent[] = []
    let error: string | undefined
    for (const { event, data } of events) {
      if (event === 'chunk') chunks.push({ data: chunkOf(data) })
      else if (event?.endsWith('Exception'))
        error = `stream error: ${event}: ${str(asRecord(data).message) ?? ''}`
    }
    const answer = anthropicMessagesCodec.readStream(chunks)
    if (error !== undefined) answer.error = error
    return answer
  },
}

/** The model's own event in a `chunk`: stored decoded, or still base64 when it was not JSON. */
function chunkOf(data: unknown): unknown {
  const bytes = asRecord(data).bytes
  return typeof bytes === 'string'
    ? (parseJson(Buffer.from(bytes, 'base64').toString('utf8')) ?? bytes)
    : bytes
}
