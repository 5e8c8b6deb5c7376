/** Tokens of one model decision, as the provider reported them when it was recorded. */
export interface TokenUsage {
  input: number
  output: number
}

/** Reads the token usage of one recorded decision; `undefined` when it carries none. */
export type UsageReader = (decision: { kind: string; in?: unknown; out?: unknown }) => TokenUsage | undefined

const INPUT_FIELDS = ['input_tokens', 'prompt_tokens', 'inputTokens', 'promptTokens']
const OUTPUT_FIELDS = ['output_tokens', 'completion_tokens', 'outputTokens', 'completionTokens']
const MAX_DEPTH = 8

/**
 * The default {@link UsageReader}: finds every `usage` object in a model decision's recorded
 * output (a JSON body, or the events of a stream) and keeps the largest input and output
 * counts. Streams repeat or accumulate usage (Anthropic's `message_start` then
 * `message_delta`, OpenAI's final chunk), so the largest value is the decision's total.
 */
export const readTokenUsage: UsageReader = ({ kind, out }) => {
  if (kind !== 'llm') return undefined
  const found: TokenUsage = { input: 0, output: 0 }
  let any = false
  const visit = (value: unknown, depth: number): void => {
    if (depth > MAX_DEPTH || typeof value !== 'object' || value === null) return
    if (Array.isArray(value)) {
      for (const item of value) visit(item, depth + 1)
      return
    }
    for (const [key, child] of Object.entries(value)) {
      if (key === 'usage' && typeof child === 'object' && child !== null) {
        const usage = child as Record<string, unknown>
        const input = firstNumber(usage, INPUT_FIELDS)
        const output = firstNumber(usage, OUTPUT_FIELDS)
        if (input !== undefined || output !== undefined) {
          any = true
          found.input = Math.max(found.input, input ?? 0)
          found.output = Math.max(found.output, output ?? 0)
        }
      } else if (typeof child === 'string' && child.includes('"usage"') && child.length < 1_000_000) {
        // A stream event's `data` is recorded as text.
        try {
          visit(JSON.parse(child), depth + 1)
        } catch {}
      } else {
        visit(child, depth + 1)
      }
    }
  }
  visit(out, 0)
  return any ? found : undefined
}

/** Adds usages; `undefined` entries count as zero. */
export function sumUsage(usages: readonly (TokenUsage | undefined)[]): TokenUsage {
  const total = { input: 0, output: 0 }
  for (const u of usages) {
    if (!u) continue
    total.input += u.input
    total.output += u.output
  }
  return total
}

function firstNumber(record: Record<string, unknown>, fields: readonly string[]): number | undefined {
  for (const field of fields) {
    const value = record[field]
    if (typeof value === 'number' && Number.isFinite(value) && value >= 0) return value
  }
  return undefined
}
