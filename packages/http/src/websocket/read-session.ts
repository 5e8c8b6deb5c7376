import { sessionCodecByName } from '../codecs/index.js'
import { asRecord, type ModelAnswer, type ModelRequest } from '../codecs/read.js'
import { recordedMessages } from './session-frames.js'

/**
 * A decision of a WebSocket session read as a model exchange, for `show`, `diff` and `view`:
 * the client message as the request (its frame type, the tools it declares, the turn it adds)
 * and the server's frames after it as the answer (text, tool calls, why it stopped, an error
 * event), read by the session's codec. `undefined` for a decision of another kind, or one whose
 * frames carry no answer (a `session.updated`): it reads as its input and output.
 */
export function readSessionDecision(
  input: unknown,
  out: unknown,
): { request: ModelRequest; answer: ModelAnswer } | undefined {
  const { api, frame, message } = asRecord(input)
  const codec = typeof api === 'string' ? sessionCodecByName(api) : undefined
  if (!codec || typeof frame !== 'string') return undefined
  const parts = codec.readMessages(recordedMessages(out))
  if (!parts.text && parts.toolCalls.length === 0 && !parts.finishReason && !parts.error) return undefined
  const read = codec.readMessage(asRecord(message))
  const request: ModelRequest = {
    api: codec.name,
    method: 'websocket',
    path: frame,
    messages: read.last ? 1 : 0,
    tools: read.tools.length,
  }
  if (read.last) request.last = read.last
  const model = asRecord(out).model
  if (typeof model === 'string') request.model = model
  return { request, answer: { status: 101, streamed: true, ...parts } }
}

/**
 * The names of the tools a session's message declares, for `view`; `undefined` for a decision
 * that is no message of a session a codec reads.
 */
export function sessionToolNames(input: unknown): string[] | undefined {
  const { api, message } = asRecord(input)
  const codec = typeof api === 'string' ? sessionCodecByName(api) : undefined
  return codec && message !== undefined ? codec.readMessage(asRecord(message)).tools : undefined
}
