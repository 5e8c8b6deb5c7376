import type { Endpoint, TurnContext } from './endpoint.js'
import type { ReceivedRequest } from './received-request.js'
import type { HttpErrorFault } from './turn.js'

/**
 * JSON as Ollama's server (written in Go) writes it: compact, with `<`, `>`, `&`, U+2028 and
 * U+2029 escaped as `\u003c`, …, which `JSON.stringify` does not do. Those characters only occur
 * inside strings, so the replacement never touches the structure.
 */
export function goJson(value: unknown): string {
  return JSON.stringify(value).replace(
    /[<>&\u2028\u2029]/g,
    (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`,
  )
}

/** Newline-delimited JSON, one object per line, as Ollama streams by default. */
const NDJSON_WIRE = { contentType: 'application/x-ndjson', encode: (event: unknown) => `${goJson(event)}\n` }

/** `created_at`: now, in RFC 3339 with the microseconds Go prints. */
function createdAt(): string {
  const now = performance.timeOrigin + performance.now()
  const micros = String(Math.floor((now % 1000) * 1000)).padStart(6, '0')
  return `${new Date(Math.floor(now)).toISOString().slice(0, 19)}.${micros}Z`
}

/** The timings (nanoseconds) and token counts of the last object, in Go's field order. */
function metrics(ctx: TurnContext) {
  const { inputTokens, outputTokens } = ctx.turn.usage
  const promptEval = 1_000_000 + inputTokens * 250_000
  const evalDuration = 2_000_000 + outputTokens * 12_000_000
  const load = 41_000_000
  return {
    total_duration: load + promptEval + evalDuration + 1_500_000,
    load_duration: load,
    prompt_eval_count: inputTokens,
    prompt_eval_duration: promptEval,
    eval_count: outputTokens,
    eval_duration: evalDuration,
  }
}

/** Ollama stops for `stop` or `length`; a turn that calls tools ends with `stop` too. */
function doneReason(ctx: TurnContext): string {
  return ctx.turn.finishReason === 'length' ? 'length' : 'stop'
}

/** Tool calls as recent servers send them: whole, arguments as an object, with an id and index. */
function toolCalls(ctx: TurnContext) {
  return ctx.turn.toolCalls.map((call, index) => ({
    id: call.id ?? `call_${ctx.ids.base62(8).toLowerCase()}`,
    function: { index, name: call.name, arguments: call.input },
  }))
}

const ERRORS: Record<number, string> = {
  400: 'invalid request',
  404: 'model not found, try pulling it first',
  429: 'too many requests',
  500: 'llama runner process has terminated: exit status 2',
  503: 'server busy, please try again.  maximum pending requests exceeded',
}

/** Ollama's error body: `{"error":"…"}`. */
function errorBody(fault: HttpErrorFault): unknown {
  return { error: fault.message ?? ERRORS[fault.status] ?? ERRORS[fault.status >= 500 ? 500 : 400] }
}

const common = {
  // Streamed unless the body says `"stream": false`.
  wantsStream: (request: ReceivedRequest) => request.body.stream !== false,
  wire: NDJSON_WIRE,
  jsonText: goJson,
  // Ollama sends no request id and no provider headers.
  requestIdHeader: 'x-request-id',
  responseHeaders: () => ({}),
  // A failure after the headers is one more line, `{"error":"…"}`, and the end of the stream.
  streamError: (fault: { message?: string }) => ({
    error: fault.message ?? 'an error was encountered while running the model: unexpected EOF',
  }),
  errorBody,
}

/** Ollama chat, `POST /api/chat`: `message` objects, tool calls whole in one line each. */
export const ollamaChat: Endpoint = {
  name: 'ollama-chat',
  matches: (path) => path.endsWith('/api/chat'),
  ...common,
  json(ctx) {
    const calls = toolCalls(ctx)
    return {
      model: ctx.model,
      created_at: createdAt(),
      message: {
        role: 'assistant',
        content: ctx.turn.text,
        ...(calls.length > 0 ? { tool_calls: calls } : {}),
      },
      done_reason: doneReason(ctx),
      done: true,
      ...metrics(ctx),
    }
  },
  events(ctx) {
    const line = (message: Record<string, unknown>) => ({
      model: ctx.model,
      created_at: createdAt(),
      message: { role: 'assistant', ...message },
      done: false,
    })
    return [
      ...ctx.turn.textDeltas.map((content) => line({ content })),
      ...toolCalls(ctx).map((call) => line({ content: '', tool_calls: [call] })),
      {
        ...line({ content: '' }),
        done_reason: doneReason(ctx),
        done: true,
        ...metrics(ctx),
      },
    ]
  },
}

/** Ollama generate, `POST /api/generate`: text in `response`, the `context` tokens at the end. */
export const ollamaGenerate: Endpoint = {
  name: 'ollama-generate',
  matches: (path) => path.endsWith('/api/generate'),
  ...common,
  json(ctx) {
    return {
      model: ctx.model,
      created_at: createdAt(),
      response: ctx.turn.text,
      done: true,
      done_reason: doneReason(ctx),
      context: context(ctx),
      ...metrics(ctx),
    }
  },
  events(ctx) {
    const line = (response: string) => ({ model: ctx.model, created_at: createdAt(), response, done: false })
    return [
      ...ctx.turn.textDeltas.map(line),
      { ...line(''), done: true, done_reason: doneReason(ctx), context: context(ctx), ...metrics(ctx) },
    ]
  },
}

/** The token ids of the exchange, which a client may send back to continue it. */
function context(ctx: TurnContext): number[] {
  const { inputTokens, outputTokens } = ctx.turn.usage
  return Array.from({ length: Math.min(inputTokens + outputTokens, 16) }, (_, i) => 128000 + i * 7)
}
