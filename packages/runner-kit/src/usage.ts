import { recordedUsage, type TokenUsage } from '@agent-tape/http'

/** Reads the token usage of one recorded decision; `undefined` when it carries none. */
export type UsageReader = (decision: { kind: string; in?: unknown; out?: unknown }) => TokenUsage | undefined

/** The default {@link UsageReader}: a model decision's usage, as its provider's codec reads it. */
export const readRecordedUsage: UsageReader = (decision) =>
  decision.kind === 'llm' ? recordedUsage(decision.in, decision.out) : undefined
