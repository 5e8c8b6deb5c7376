import { createHash } from 'node:crypto'
import { sumUsage, type TokenUsage } from './codec.js'
import { type AnswerParts, asRecord, type Json } from './read.js'

/**
 * A realtime API spoken over a WebSocket session: which session URLs it owns, what of the
 * handshake keys a session, how a client message becomes canonical decision input (its type and
 * fields, audio as a digest), how a miss is told to the client in the API's own error event, and
 * how the server's frames read back for `show` and `view` (text and tool calls). The session
 * itself, the framing and the recording are common (`websocket/`); a codec names its provider.
 */
export interface SessionCodec {
  /** Stable name, part of the key: `openai-realtime`, … */
  readonly name: string
  /** Whether a session URL belongs to this API (by its path). */
  matches(url: URL): boolean
  /** Query parameters that carry a credential: left out of the key and the cassette. */
  readonly credentialQuery: readonly string[]
  /** Handshake headers that change what the server does: part of the key. */
  readonly behaviourHeaders: readonly string[]
  /** Prefixes of subprotocols that carry a credential (a browser's way to send a key). */
  readonly credentialProtocols: readonly string[]
  /**
   * A client message as canonical input: its type (`session.update`) and its fields, volatile
   * ids dropped and audio replaced by a digest of its bytes.
   */
  canonicalMessage(message: Json): { type: string; message: unknown }
  /**
   * The frame that tells the client its message was not answered (a miss, `ERR_TAPE_MISS`; a
   * turn over a drift run's budget, `ERR_TAPE_BUDGET`), the API's error event, if it has one.
   */
  missFrame(message: string, code: string): Json | undefined
  /** The answer the server's messages after one client message make: text, tool calls, tokens. */
  readMessages(messages: readonly Json[]): AnswerParts
  /** What a client message asks, in a few words: the tools it declares, the turn it adds. */
  readMessage(message: Json): SessionRequest
  /**
   * Whether a client message asks the model for an answer (Realtime's `response.create`, a Live
   * turn that is complete): its decision starts a step, as a model request over HTTP does, and
   * counts as one where model requests are counted or held to a budget.
   */
  asksModel(message: Json): boolean
  /** The model a session's URL asks for (`?model=…`), if it names one. */
  modelOfUrl(url: URL): string | undefined
  /**
   * The model a message names, the client's (the one it asks for) or the server's (the one that
   * answers), if it names one. A recording keeps the latest on each decision of the session, as
   * its tokens are priced by it.
   */
  modelOf(message: Json): string | undefined
  /** Where the price table looks the session's model up (see `ModelCodec.priceProviders`). */
  readonly priceProviders: readonly string[]
  /** Fields of the server's messages that change on every session (see `ModelCodec.volatileFields`). */
  readonly volatileFields: readonly string[]
  /** Prefixes of the ids the server generates (see `ModelCodec.idPrefixes`). */
  readonly idPrefixes: readonly string[]
}

/** A client message read for `show` and `view` (see {@link SessionCodec.readMessage}). */
export interface SessionRequest {
  /** The names of the tools the message declares (a `session.update`'s, a `setup`'s). */
  tools: string[]
  last?: { role: string; text: string }
}

/** A session no codec owns: JSON messages keyed whole, by their `type` when they have one. */
export const genericSessionCodec: SessionCodec = {
  name: 'websocket',
  matches: () => true,
  credentialQuery: ['key', 'api_key', 'apikey', 'access_token', 'token'],
  behaviourHeaders: [],
  credentialProtocols: [],
  canonicalMessage: (message) => ({
    type: typeof message.type === 'string' ? message.type : 'json',
    message,
  }),
  missFrame: () => undefined,
  readMessages: () => ({ text: '', toolCalls: [] }),
  readMessage: () => ({ tools: [] }),
  asksModel: () => false,
  modelOfUrl: () => undefined,
  modelOf: () => undefined,
  priceProviders: [],
  volatileFields: [],
  idPrefixes: [],
}

/**
 * The digest that stands for audio (or any base64 payload) in a key: its bytes' SHA-256 and
 * length. A recording keeps the client's audio as this digest, so that a 30-second session is
 * not stored twice; the server's audio is kept as sent (base64), since a replay plays it back.
 */
export function base64Digest(data: string): { sha256: string; bytes: number } {
  const bytes = Buffer.from(data, 'base64')
  return { sha256: createHash('sha256').update(bytes).digest('hex').slice(0, 32), bytes: bytes.length }
}

/** `record` with the string at `field` replaced by its {@link base64Digest}, when it is one. */
export function digestField(record: unknown, field: string): unknown {
  const json = asRecord(record)
  const value = json[field]
  return typeof value === 'string' ? { ...json, [field]: base64Digest(value) } : record
}

/** A number, or `undefined` for anything else. */
export function num(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isFinite(value) ? value : undefined
}

/** The tokens of two parts of a session's answer added (several responses after one message). */
export function addUsage(a: TokenUsage | undefined, b: TokenUsage | undefined): TokenUsage | undefined {
  return !a || !b ? (a ?? b) : sumUsage([a, b])
}
