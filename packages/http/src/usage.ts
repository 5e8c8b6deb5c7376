import type { TokenUsage } from './codecs/codec.js'
import { codecByName } from './codecs/index.js'
import { bodyJson, isRecordedResponse } from './recorded-response.js'
import { streamEvents } from './streams/index.js'

/**
 * Token usage recorded in a model decision (`in.api` names the codec, `out` is the response),
 * for the run summary's tokens and their price.
 */
export function recordedUsage(input: unknown, out: unknown): TokenUsage | undefined {
  const api = (input as { api?: unknown } | null)?.api
  if (typeof api !== 'string' || !isRecordedResponse(out) || !out.body) return undefined
  const codec = codecByName(api)
  if (!codec) return undefined
  const body = out.body
  const json = bodyJson(body)
  if (json) return codec.usage(json.json, [])
  const events = streamEvents(body)
  return events
    ? codec.usage(
        undefined,
        events.map((e) => e.data),
      )
    : undefined
}

export { sumUsage } from './codecs/codec.js'
