import { anthropicMessagesCodec } from './anthropic-messages.js'
import type { ModelCodec } from './codec.js'
import { openaiChatCodec } from './openai-chat.js'
import { openaiResponsesCodec } from './openai-responses.js'

/** The provider codecs, tried in order; a model request none of them owns is keyed as generic HTTP. */
export const MODEL_CODECS: readonly ModelCodec[] = [
  openaiChatCodec,
  openaiResponsesCodec,
  anthropicMessagesCodec,
]

export function findCodec(method: string, pathname: string): ModelCodec | undefined {
  return MODEL_CODECS.find((codec) => codec.matches(method, pathname))
}

export function codecByName(name: string): ModelCodec | undefined {
  return MODEL_CODECS.find((codec) => codec.name === name)
}
