/**
 * A provider codec says how one model API is keyed and answered: which requests it owns, how
 * a request body becomes canonical decision input, and how a replay miss is answered in that
 * provider's error shape (so the SDK surfaces the report instead of retrying). Adding a
 * provider is one new file next to this one plus a line in `index.ts`.
 */
export interface ModelCodec {
  /** Stable name, part of the key: `openai-chat`, `anthropic-messages`, … */
  readonly name: string
  /** Whether this codec owns a request to a model endpoint (by method and path). */
  matches(method: string, pathname: string): boolean
  /** Canonical body for the key: volatile fields dropped, tools sorted by name, all else kept. */
  canonicalBody(body: unknown): unknown
  /** The JSON error body a miss is answered with. */
  errorBody(message: string): unknown
  /** Token usage of a recorded answer, for reports (`undefined` when it has none). */
  usage(body: unknown, events: readonly unknown[]): TokenUsage | undefined
}

export interface TokenUsage {
  input: number
  output: number
}

/** Fields that never decide a model's answer: ids for billing, analytics and caching. */
export const VOLATILE_BODY_FIELDS = [
  'user',
  'metadata',
  'store',
  'prompt_cache_key',
  'safety_identifier',
  'service_tier',
]

export function withoutVolatile(body: unknown, extra: readonly string[] = []): unknown {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return body
  const copy: Record<string, unknown> = { ...(body as Record<string, unknown>) }
  for (const field of [...VOLATILE_BODY_FIELDS, ...extra]) delete copy[field]
  return copy
}

/** Sorts a `tools` array by each tool's name (function tools) or type (built-in tools). */
export function sortTools(
  body: unknown,
  nameOf: (tool: Record<string, unknown>) => string | undefined,
): unknown {
  if (typeof body !== 'object' || body === null) return body
  const record = body as Record<string, unknown>
  if (!Array.isArray(record.tools)) return body
  const tools = [...record.tools].sort((a, b) => {
    const x = nameOf(a as Record<string, unknown>) ?? ''
    const y = nameOf(b as Record<string, unknown>) ?? ''
    return x < y ? -1 : x > y ? 1 : 0
  })
  return { ...record, tools }
}

export function numberAt(value: unknown, ...path: string[]): number | undefined {
  let current: unknown = value
  for (const key of path) {
    if (typeof current !== 'object' || current === null) return undefined
    current = (current as Record<string, unknown>)[key]
  }
  return typeof current === 'number' ? current : undefined
}
