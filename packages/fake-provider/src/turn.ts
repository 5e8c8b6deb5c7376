/** Why a turn ended, in provider-neutral terms; each endpoint maps it to its own vocabulary. */
export type FinishReason = 'stop' | 'length' | 'tool_calls' | 'content_filter'

/** Token counts reported in the provider's `usage` object. */
export interface Usage {
  /** Every input token, those read from or written to the prompt cache included. */
  inputTokens: number
  outputTokens: number
  /** Of the input tokens, those read from the prompt cache (default 0). */
  cachedTokens?: number
  /** Of the input tokens, those written to the prompt cache (default 0; Anthropic and Bedrock report them). */
  cacheWriteTokens?: number
}

/** One function/tool call the scripted model makes. */
export interface ToolCall {
  /** Provider call id (`call_…`, `toolu_…`); generated when omitted. */
  id?: string
  name: string
  /** Arguments object; a string is sent verbatim as the raw JSON text (to script malformed JSON). */
  args: unknown
}

/** Answer with an HTTP error instead of a completion, shaped as the provider shapes errors. */
export interface HttpErrorFault {
  /** HTTP status, e.g. 400, 429, 500, 529. */
  status: number
  /** Provider error type (`rate_limit_error`, `server_error`, …); derived from the status when omitted. */
  type?: string
  message?: string
  /** OpenAI `error.code`; derived from the status when omitted. */
  code?: string | null
  /** Extra response headers, e.g. `{ 'retry-after': '0', 'x-should-retry': 'false' }`. */
  headers?: Readonly<Record<string, string>>
}

/** In a stream, send the provider's in-band error event after `afterEvents` events, then end. */
export interface StreamErrorFault {
  /** Events sent before the error; defaults to half of the stream. */
  afterEvents?: number
  /** Provider error type; defaults to `overloaded_error` (Anthropic) or `server_error` (OpenAI). */
  type?: string
  message?: string
}

/**
 * What the scripted model answers to one request, independent of the provider wire format.
 *
 * @example
 * ```ts
 * const turn: Turn = { toolCalls: [{ name: 'lookup_invoice', args: { id: 'inv_1' } }] }
 * const final: Turn = { text: 'Refunded.', usage: { inputTokens: 52, outputTokens: 3 } }
 * ```
 */
export interface Turn {
  /** Assistant text; an array gives the exact stream deltas, a string is split into words. */
  text?: string | readonly string[]
  toolCalls?: readonly ToolCall[]
  /** Defaults to `tool_calls` when there are tool calls, else `stop`. */
  finishReason?: FinishReason
  /** Defaults to an estimate from the request and answer sizes (about 4 characters a token). */
  usage?: Usage
  /** Model name reported back; defaults to the request's `model`. */
  model?: string
  /** Fail the request with this HTTP error. */
  error?: HttpErrorFault
  /** Streams only: send an in-band error event mid-stream. */
  streamError?: StreamErrorFault
  /** Streams only: destroy the socket after this many events (a connection cut mid-stream). */
  cutAfterEvents?: number
  /**
   * Streams only: after the last event, keep the response open this long before ending it (a
   * server or proxy slow to close), or until the client goes away.
   */
  holdOpenMs?: number
  /**
   * Streams only: after this many events, send nothing more until the client goes away. A client
   * that aborts mid-stream then never has a later event to read, however loaded the machine.
   */
  holdAfterEvents?: number
  /** Streams only: wait this long before each event; overrides the server option. */
  chunkDelayMs?: number
  /** Wait this long before sending the response headers (a slow model, a client timeout). */
  headersDelayMs?: number
  /** Non-streamed JSON only: gzip the body when the client accepts gzip; overrides the server option. */
  gzip?: boolean
  /** Extra response headers. */
  headers?: Readonly<Record<string, string>>
}
