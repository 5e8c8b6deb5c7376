import { anthropicMessagesCodec } from './anthropic-messages.js'
import { bedrockConverseCodec } from './bedrock-converse.js'
import { bedrockInvokeCodec } from './bedrock-invoke.js'
import type { KeyVariable, ModelCodec, OtherCredentials } from './codec.js'
import { geminiCodec } from './gemini.js'
import { geminiLiveCodec } from './gemini-live.js'
import { ollamaCodec } from './ollama.js'
import { openaiChatCodec } from './openai-chat.js'
import { openaiRealtimeCodec } from './openai-realtime.js'
import { openaiResponsesCodec } from './openai-responses.js'
import { openaiResponsesWsCodec } from './openai-responses-ws.js'
import { genericSessionCodec, type SessionCodec } from './session-codec.js'
import { UNREAD_PROVIDERS } from './unread-providers.js'

/**
 * The provider codecs, tried in order; a model request none of them owns is keyed as generic
 * HTTP. Append new codecs: the behaviour headers of a request are stored in this order, so a
 * codec added at the end leaves the bytes of existing cassettes as they are.
 */
export const MODEL_CODECS: readonly ModelCodec[] = [
  anthropicMessagesCodec,
  openaiChatCodec,
  openaiResponsesCodec,
  ollamaCodec,
  bedrockConverseCodec,
  bedrockInvokeCodec,
  geminiCodec,
]

/**
 * The realtime APIs spoken over a WebSocket session (see {@link SessionCodec}), tried in order;
 * a session none of them owns is taped with the generic codec.
 */
export const SESSION_CODECS: readonly SessionCodec[] = [
  openaiRealtimeCodec,
  geminiLiveCodec,
  openaiResponsesWsCodec,
]

/** The codec of a WebSocket session to `url`: the API's, or the generic one. */
export function findSessionCodec(url: URL): SessionCodec {
  return SESSION_CODECS.find((codec) => codec.matches(url)) ?? genericSessionCodec
}

/** A session codec by its name (as a cassette stores it). */
export function sessionCodecByName(name: string): SessionCodec | undefined {
  return [...SESSION_CODECS, genericSessionCodec].find((codec) => codec.name === name)
}

/**
 * Where the price table looks up the models of an API (a model codec's or a session codec's
 * name); `undefined` for a name no codec has.
 */
export function priceProvidersOf(api: string): readonly string[] | undefined {
  return (codecByName(api) ?? sessionCodecByName(api))?.priceProviders
}

export function findCodec(method: string, pathname: string): ModelCodec | undefined {
  return MODEL_CODECS.find((codec) => codec.matches(method, pathname))
}

export function codecByName(name: string): ModelCodec | undefined {
  return MODEL_CODECS.find((codec) => codec.name === name)
}

const unique = <T>(values: Iterable<T>): T[] => [...new Set(values)]

/** Every host a known provider serves a model API from (host names and RegExps). */
export const MODEL_HOSTS: readonly (string | RegExp)[] = unique([
  ...MODEL_CODECS.flatMap((c) => c.hosts),
  ...UNREAD_PROVIDERS.flatMap((p) => p.hosts),
])

/** Whether `hostname` serves a known provider's model API. */
export function isModelHost(hostname: string): boolean {
  return MODEL_HOSTS.some((host) => (typeof host === 'string' ? host === hostname : host.test(hostname)))
}

/** The variables of one credential (see {@link KeyVariable}). */
export function keyVariableNames(variable: KeyVariable): readonly string[] {
  if (typeof variable === 'string') return [variable]
  return 'oneOf' in variable ? variable.oneOf : variable.allOf
}

/** The credentials of every known provider, with where else its SDKs find them. */
export const PROVIDER_KEYS: readonly { keys: readonly KeyVariable[]; otherCredentials?: OtherCredentials }[] =
  [...MODEL_CODECS, ...UNREAD_PROVIDERS].map((p) => ({
    keys: p.keyVariables,
    ...('otherCredentials' in p && p.otherCredentials ? { otherCredentials: p.otherCredentials } : {}),
  }))

/** The variables every known provider's SDKs read an API key from. */
export const KEY_VARIABLES: readonly string[] = unique(
  PROVIDER_KEYS.flatMap((p) => p.keys.flatMap(keyVariableNames)),
)

/** The behaviour headers of every codec, in the order a request's are stored. */
export const BEHAVIOUR_HEADERS: readonly string[] = unique(MODEL_CODECS.flatMap((c) => c.behaviourHeaders))

/** Provider response headers worth storing: names, and prefixes ending in `-`. */
export const PROVIDER_RESPONSE_HEADERS: readonly string[] = unique(
  MODEL_CODECS.flatMap((c) => c.responseHeaders),
)

/** Response headers and fields that change on every recording: names, and prefixes ending in `-`. */
export const PROVIDER_VOLATILE_FIELDS: readonly string[] = unique([
  ...MODEL_CODECS.flatMap((c) => c.volatileFields),
  ...SESSION_CODECS.flatMap((c) => c.volatileFields),
])

/** Ids the providers generate (`chatcmpl-…`, `toolu_…`): a prefix and at least 8 letters or digits. */
export const PROVIDER_ID = new RegExp(
  `\\b(?:${unique([...MODEL_CODECS, ...SESSION_CODECS].flatMap((c) => c.idPrefixes))
    .map((p) => p.replace(/[.*+?^${}()|[\]\\-]/g, '\\$&'))
    .join('|')})[A-Za-z0-9]{8,}\\b`,
  'g',
)

/** Whether `name` is in a list of names and `-`-terminated prefixes. */
export function inNameList(list: readonly string[], name: string): boolean {
  return list.some((entry) => (entry.endsWith('-') ? name.startsWith(entry) : name === entry))
}

/** Whether a response header or field changes on every recording, by some codec's account. */
export function isVolatileField(name: string): boolean {
  return inNameList(PROVIDER_VOLATILE_FIELDS, name)
}
