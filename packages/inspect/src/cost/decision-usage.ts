import { type TokenUsage, USAGE_PARTS } from '@agent-tape/http/internal'
import type { UsageReader } from './recorded-usage.js'

/** The tokens of one model decision, with the model that spent them: the unit every cost is priced in. */
export interface DecisionUsage extends TokenUsage {
  /** The decision's number in its cassette. */
  seq: number
  step: number
  /** The model that answered (or was asked for); absent when the answer names none. */
  model?: string
  /** The API of the exchange (the codec's name), which says whose prices apply. */
  api?: string
}

/** The tokens of one model across decisions. */
export interface ModelTokens extends TokenUsage {
  /** `undefined` for decisions whose model no answer named. */
  model?: string
  api?: string
  decisions: number
}

/** A decision as the usage readers take it. */
export interface UsageSource {
  seq: number
  step: number
  kind: string
  in?: unknown
  out?: unknown
}

/** The usage of each decision that reports one, in order. */
export function usageOfDecisions(decisions: readonly UsageSource[], reader: UsageReader): DecisionUsage[] {
  const usages: DecisionUsage[] = []
  for (const d of decisions) {
    const usage = reader(d)
    if (!usage) continue
    const entry: DecisionUsage = { seq: d.seq, step: d.step, input: usage.input, output: usage.output }
    for (const part of USAGE_PARTS) if (usage[part]) entry[part] = usage[part]
    if (usage.model !== undefined) entry.model = usage.model
    if (usage.api !== undefined) entry.api = usage.api
    usages.push(entry)
  }
  return usages
}

/** Tokens by model (and API), in order of first use. */
export function tokensByModel(usages: readonly DecisionUsage[]): ModelTokens[] {
  const models = new Map<string, ModelTokens>()
  for (const u of usages) {
    const id = `${u.api ?? ''}\u0000${u.model ?? ''}`
    const m = models.get(id) ?? {
      ...(u.model === undefined ? {} : { model: u.model }),
      ...(u.api === undefined ? {} : { api: u.api }),
      decisions: 0,
      input: 0,
      output: 0,
    }
    m.decisions++
    m.input += u.input
    m.output += u.output
    for (const part of USAGE_PARTS) if (u[part]) m[part] = (m[part] ?? 0) + u[part]
    models.set(id, m)
  }
  return [...models.values()]
}
