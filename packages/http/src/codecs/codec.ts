import type { AnswerParts, ModelRequest, StreamEvent } from './read.js'

/**
 * A provider codec is everything agent-tape knows about one model API: where it is served,
 * which requests it owns, how a request body becomes canonical decision input, which headers
 * change the answer, how a replay miss is answered in the provider's error shape (so the SDK
 * surfaces the report instead of retrying), and how a recorded exchange is read back (token
 * usage, the request and the answer for `show`, `diff` and `view`, the ids that vary between
 * recordings). Adding a provider is one new file next to this one, listed in `index.ts`; no
 * other file of agent-tape names a provider.
 */
/** A variable an SDK reads its base URL from, as the gateway stands in for it. */
export interface BaseUrlVariable {
  /** The variable, as the SDKs read it. */
  variable: string
  /** The route's name in the gateway's URLs: `http://127.0.0.1:<port>/@<place>/<route>/…`. */
  route: string
  /** The upstream when the environment does not set the variable; none: the route is used only when it does. */
  upstream?: string
  /** Who reads it, for the documentation. */
  readBy: string
}

export interface ModelCodec {
  /** Stable name, part of the key: `openai-chat`, `anthropic-messages`, … */
  readonly name: string
  /**
   * Hosts that serve this API: requests to them are model requests without any configuration
   * (a host name, or a RegExp on the host name). Several codecs may list the same host.
   */
  readonly hosts: readonly (string | RegExp)[]
  /**
   * Variables the provider's SDKs read an API key from when a client is constructed: each gets a
   * placeholder in a run that may replay, when it is unset (see `replay-keys.ts`).
   */
  readonly keyVariables: readonly KeyVariable[]
  /**
   * Where the provider's SDKs find credentials besides its key variables (a profile, a token
   * file): variables, and files (`~/` is the home folder). While one of them is there, a run that
   * may record gives the key variables no placeholder, which the SDK would take over them.
   */
  readonly otherCredentials?: OtherCredentials
  /**
   * The variables the provider's SDKs, in every language, read their base URL from: the gateway
   * of a command's processes outside Node points each at a route of its own (see
   * `gateway/routes.ts`). Several codecs of one provider list them once, in one of them.
   */
  readonly baseUrlVariables?: readonly BaseUrlVariable[]
  /** Request headers that change what the provider does: part of the key. */
  readonly behaviourHeaders: readonly string[]
  /** Response headers worth storing beyond the common ones: names, or prefixes ending in `-`. */
  readonly responseHeaders: readonly string[]
  /** Response headers or fields whose value changes on every recording (`diff` ignores them). */
  readonly volatileFields: readonly string[]
  /** Prefixes of the ids the provider generates (`diff` masks `<prefix><id>` as `<id>`). */
  readonly idPrefixes: readonly string[]
  /** Whether this codec owns a request to a model endpoint (by method and path). */
  matches(method: string, pathname: string): boolean
  /**
   * The API path this codec's requests end with, anchored at the end (`/chat/completions$`):
   * what comes before it in a URL is the base URL a user declares in `modelEndpoints`.
   */
  readonly apiPath: RegExp
  /**
   * Whether the path alone says that a request is a model call, because it names the model
   * (`…/models/gemini-2.5-flash:generateContent`, `/model/{id}/converse`). A request to a host
   * nobody declared is then taken for a model call by its path; otherwise it also needs a JSON
   * body that names a `model`, as generic paths (`…/messages`, `…/responses`) are used by other APIs.
   */
  readonly modelInPath: boolean
  /**
   * The path of a request to `pathname` that asks for `model` instead, for an API whose path
   * names the model ({@link modelInPath}); every other API names it in the body's `model`.
   */
  pathWithModel?(pathname: string, model: string): string
  /**
   * The base path to declare in `modelEndpoints` for a request to `pathname`, when it is not the
   * path without the API's own suffix (`…/chat/completions`): an API whose paths name one
   * deployment of a resource gives the resource's.
   */
  basePath?(pathname: string): string
  /** Canonical body for the key: volatile fields dropped, tools sorted by name, all else kept. */
  canonicalBody(body: unknown): unknown
  /** The JSON error body a miss is answered with. */
  errorBody(message: string): unknown
  /** Headers the SDK reads the error's type from, when the body does not carry it. */
  readonly errorHeaders?: Readonly<Record<string, string>>
  /** Token usage of a recorded answer, for reports (`undefined` when it has none). */
  usage(body: unknown, events: readonly unknown[]): TokenUsage | undefined
  /**
   * The providers whose prices apply to this API's models, as the price table names them, in
   * the order a model is looked up (the first that prices it wins); empty when its models have
   * no price per token (a model served on the user's own machine).
   */
  readonly priceProviders: readonly string[]
  /** The request in a few words, from the canonical input (path and body). */
  readRequest(input: { path?: string; body: unknown }): Omit<ModelRequest, 'api' | 'method' | 'path'>
  /** The answer of a JSON body (a successful one: errors are read in common). */
  readBody(body: unknown): AnswerParts
  /** The answer assembled from a stream's events, in-band errors included. */
  readStream(events: readonly StreamEvent[]): AnswerParts
  /**
   * Whether a streamed event is the last of an answer (`[DONE]`, `message_stop`, a terminal
   * error): the recording of the request ends there, as some clients stop reading at it without
   * draining the body. Without it (or when no event says so), the recording ends with the body.
   */
  isLastEvent?(event: StreamEvent): boolean
}

/**
 * One credential an SDK reads from the environment: a variable; `{ oneOf }`, variables an SDK
 * reads the same key from, any one of them (a placeholder for the first, and none while one is
 * set, or the SDK warns that several are); `{ allOf }`, variables read together (a key and its
 * secret: placeholders for all, and none while one is set).
 */
export type KeyVariable =
  | string
  | { readonly oneOf: readonly string[] }
  | { readonly allOf: readonly string[] }

/** See {@link ModelCodec.otherCredentials}. */
export interface OtherCredentials {
  readonly variables: readonly string[]
  readonly files: readonly string[]
}

/**
 * Tokens of one answer. `input` counts every input token, those read from or written to a
 * prompt cache included (providers that report cached tokens apart are added up), so that
 * `cached` and `cacheWrite` are parts of it, priced at their own rates.
 */
export interface TokenUsage {
  input: number
  output: number
  /** Input tokens read from the provider's prompt cache (absent when the answer says none). */
  cached?: number
  /** Input tokens written to the provider's prompt cache (absent when the answer says none). */
  cacheWrite?: number
  /** Input tokens of audio, part of `input`: a model that hears prices them at its audio rate. */
  inputAudio?: number
  /** Output tokens of audio, part of `output`: a model that speaks prices them at its audio rate. */
  outputAudio?: number
  /** Cached input tokens of audio, part of `cached` and of `inputAudio`. */
  cachedAudio?: number
}

/** The counts of a {@link TokenUsage} that are parts of its `input` or `output`, each optional. */
export const USAGE_PARTS = ['cached', 'cacheWrite', 'inputAudio', 'outputAudio', 'cachedAudio'] as const

/** The audio among an answer's tokens, as its API reports them apart. */
export interface AudioTokens {
  input?: number | undefined
  output?: number | undefined
  cached?: number | undefined
}

/** A usage, with its parts (cache, audio) set only when they are above zero. */
export function tokenUsage(
  input: number,
  output: number,
  cached = 0,
  cacheWrite = 0,
  audio: AudioTokens = {},
): TokenUsage {
  const usage: TokenUsage = { input, output }
  const parts = {
    cached,
    cacheWrite,
    inputAudio: audio.input,
    outputAudio: audio.output,
    cachedAudio: audio.cached,
  }
  for (const part of USAGE_PARTS) {
    const count = parts[part] ?? 0
    if (count > 0) usage[part] = count
  }
  return usage
}

/** Adds usages; `undefined` entries count as zero, and each part (cache, audio) appears when some usage has it. */
export function sumUsage(usages: readonly (TokenUsage | undefined)[]): TokenUsage {
  const total: TokenUsage = { input: 0, output: 0 }
  for (const u of usages) {
    if (!u) continue
    total.input += u.input
    total.output += u.output
    for (const part of USAGE_PARTS) if (u[part]) total[part] = (total[part] ?? 0) + u[part]
  }
  return total
}

/** A codec's `matches`: a POST to a path that ends with its {@link ModelCodec.apiPath}. */
export function postsTo(apiPath: RegExp): ModelCodec['matches'] {
  return (method, pathname) => method === 'POST' && apiPath.test(pathname)
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
