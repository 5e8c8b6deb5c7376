import type { FinishReason, Turn, Usage } from './turn.js'

/** A tool call with its id and argument text fixed, ready to be encoded. */
export interface ResolvedToolCall {
  /** The scripted id, or `undefined` so each endpoint generates one in its own format. */
  id: string | undefined
  name: string
  /** The exact JSON text of the arguments. */
  argumentsJson: string
  /** The arguments parsed back (Anthropic sends an object), `{}` when the text is not JSON. */
  input: unknown
}

/** A turn with every default applied. */
export interface ResolvedTurn {
  text: string
  /** The deltas a stream sends for `text` (empty when there is no text). */
  textDeltas: string[]
  toolCalls: ResolvedToolCall[]
  finishReason: FinishReason
  usage: Usage
}

const estimateTokens = (chars: number): number => Math.max(1, Math.ceil(chars / 4))

/** Splits text into word-sized stream deltas (`"Hello world"` → `["Hello ", "world"]`). */
export function splitText(text: string): string[] {
  return text.match(/\s*\S+\s*/g) ?? (text === '' ? [] : [text])
}

/** Splits argument JSON into fixed-size fragments, as providers stream partial JSON. */
export function splitJson(json: string, size = 12): string[] {
  const chars = Array.from(json)
  const out: string[] = []
  for (let i = 0; i < chars.length; i += size) out.push(chars.slice(i, i + size).join(''))
  return out
}

function resolveToolCall(call: NonNullable<Turn['toolCalls']>[number]): ResolvedToolCall {
  const argumentsJson = typeof call.args === 'string' ? call.args : JSON.stringify(call.args ?? {})
  let input: unknown = {}
  try {
    input = JSON.parse(argumentsJson)
  } catch {
    // Malformed arguments are a scripted fault: keep the text, report an empty input object.
  }
  return { id: call.id, name: call.name, argumentsJson, input }
}

/** Applies the defaults of a `Turn` (finish reason, deltas, estimated usage). */
export function resolveTurn(turn: Turn, rawRequestBody: string): ResolvedTurn {
  const textDeltas = typeof turn.text === 'string' ? splitText(turn.text) : [...(turn.text ?? [])]
  const text = textDeltas.join('')
  const toolCalls = (turn.toolCalls ?? []).map(resolveToolCall)
  const outputChars = text.length + toolCalls.reduce((n, c) => n + c.name.length + c.argumentsJson.length, 0)
  return {
    text,
    textDeltas,
    toolCalls,
    finishReason: turn.finishReason ?? (toolCalls.length > 0 ? 'tool_calls' : 'stop'),
    usage: turn.usage ?? {
      inputTokens: estimateTokens(rawRequestBody.length),
      outputTokens: estimateTokens(outputChars),
    },
  }
}
