import { recordedModelUsage, type TokenUsage } from '@agent-tape/http/internal'

/** The usage of one recorded decision, with the model and API it is priced by when known. */
export interface RecordedUsage extends TokenUsage {
  model?: string
  /** The codec that read it (`openai-chat`, …): whose prices apply to the model. */
  api?: string
}

/**
 * Reads the token usage of one recorded decision; `undefined` when it carries none. A reader
 * for decisions of your own (`tape.call('llm', …)`) may name the `model`, which is then priced
 * by the price table's own matching.
 */
export type UsageReader = (decision: {
  kind: string
  in?: unknown
  out?: unknown
}) => RecordedUsage | undefined

/**
 * The default {@link UsageReader}: a model decision's usage and model, as its provider's codec
 * reads them; a WebSocket session's message, its tokens as the session's codec reads them.
 */
export const readRecordedUsage: UsageReader = (decision) => {
  if (decision.kind !== 'llm' && decision.kind !== 'websocket') return undefined
  const read = recordedModelUsage(decision.in, decision.out)
  if (!read) return undefined
  return { ...read.usage, ...(read.model === undefined ? {} : { model: read.model }), api: read.api }
}
