import { type TokenUsage, tokenUsage } from './codec.js'
import { audioOf } from './gemini.js'
import { type AnswerParts, asArray, asRecord, emptyAnswer, type Json, str, toolCall } from './read.js'
import { addUsage, base64Digest, num, type SessionCodec } from './session-codec.js'

/**
 * The Gemini Live API (`wss://generativelanguage.googleapis.com/ws/…BidiGenerateContent`,
 * `@google/genai`'s `ai.live.connect`; Vertex AI's `…LlmBidiService/BidiGenerateContent`): each
 * client message is one field (`setup`, `clientContent`, `realtimeInput`, `toolResponse`), its
 * name the message's type; the audio and video of `realtimeInput` keyed by their digest. The
 * server has no error event (it closes the session with a reason), so a miss closes it.
 */
export const geminiLiveCodec: SessionCodec = {
  name: 'gemini-live',
  matches: (url) => /[./]BidiGenerateContent(?:Constrained)?$/.test(url.pathname),
  credentialQuery: ['key', 'access_token'],
  behaviourHeaders: [],
  credentialProtocols: [],
  canonicalMessage(message) {
    const fields = Object.keys(message)
    const type = fields.length === 1 ? fields[0]! : 'json'
    if (type !== 'realtimeInput') return { type, message }
    return { type, message: { realtimeInput: digestMedia(asRecord(message.realtimeInput)) } }
  },
  missFrame: () => undefined,
  readMessages(messages) {
    const answer: AnswerParts = emptyAnswer()
    for (const message of messages) {
      const content = asRecord(message.serverContent)
      for (const part of asArray(asRecord(content.modelTurn).parts))
        answer.text += str(asRecord(part).text) ?? ''
      if (content.turnComplete === true) answer.finishReason = 'turnComplete'
      if (content.interrupted === true) answer.finishReason = 'interrupted'
      answer.usage = addUsage(answer.usage, readUsage(asRecord(message.usageMetadata)))
      for (const call of asArray(asRecord(message.toolCall).functionCalls)) {
        const c = asRecord(call)
        answer.toolCalls.push(toolCall(str(c.id), str(c.name), c.args ?? {}))
      }
    }
    return answer
  },
  readMessage(message) {
    const tools = asArray(asRecord(message.setup).tools).flatMap((tool) =>
      asArray(asRecord(tool).functionDeclarations).map((f) => str(asRecord(f).name) ?? '(tool)'),
    )
    const turns = asArray(asRecord(message.clientContent).turns)
    const turn = asRecord(turns.at(-1))
    if (turns.length > 0)
      return { tools, last: { role: str(turn.role) ?? 'user', text: partsText(turn.parts) } }
    const responses = asRecord(message.toolResponse).functionResponses
    if (responses !== undefined) return { tools, last: { role: 'tool', text: JSON.stringify(responses) } }
    const text = str(asRecord(message.realtimeInput).text)
    return text === undefined ? { tools } : { tools, last: { role: 'user', text } }
  },
  // A turn the client says is complete, a tool's answer (the model goes on after it), the end of
  // the audio stream or of the user's activity.
  asksModel: (message) => {
    const input = asRecord(message.realtimeInput)
    return (
      asRecord(message.clientContent).turnComplete === true ||
      message.toolResponse !== undefined ||
      input.audioStreamEnd === true ||
      input.activityEnd !== undefined
    )
  },
  modelOfUrl: () => undefined,
  // The model is named once, in `setup`: `models/gemini-live-2.5-flash`, or Vertex AI's
  // `projects/…/publishers/google/models/…`.
  modelOf: (message) => str(asRecord(message.setup).model)?.replace(/^.*\bmodels\//, ''),
  priceProviders: ['google'],
  // A session's resumption handle, and when the server will close it.
  volatileFields: ['newHandle', 'timeLeft'],
  idPrefixes: [],
}

/** A message's `usageMetadata`: the prompt's tokens (the cached ones among them) and the response's, with their audio. */
function readUsage(usage: Json): TokenUsage | undefined {
  const input = num(usage.promptTokenCount)
  const output = num(usage.responseTokenCount) ?? num(usage.candidatesTokenCount)
  if (input === undefined && output === undefined) return undefined
  return tokenUsage(input ?? 0, output ?? 0, num(usage.cachedContentTokenCount) ?? 0, 0, audioOf(usage))
}

function partsText(parts: unknown): string {
  return asArray(parts)
    .map((part) => str(asRecord(part).text) ?? '')
    .join('')
}

/** Media in a `realtimeInput` (a blob `{ data, mimeType }`, or a list of them) as digests. */
function digestMedia(input: Json): Json {
  const blob = (value: unknown) => {
    const b = asRecord(value)
    return typeof b.data === 'string' ? { ...b, data: base64Digest(b.data) } : value
  }
  const out: Json = { ...input }
  for (const field of ['audio', 'video', 'media']) if (field in out) out[field] = blob(out[field])
  if (Array.isArray(out.mediaChunks)) out.mediaChunks = out.mediaChunks.map(blob)
  return out
}
