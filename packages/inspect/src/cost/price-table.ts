import { createRequire } from 'node:module'
import { fileURLToPath } from 'node:url'
import { priceProvidersOf, type TokenUsage } from '@agent-tape/http/internal'
import type { DecisionUsage } from './decision-usage.js'

/** What agent-tape uses of `@pydantic/genai-prices` (see decision 0025). */
interface PriceLibrary {
  calcPrice(
    usage: Record<string, number | undefined>,
    model: string,
    options?: { providerId?: string; timestamp?: Date },
  ): { total_price: number } | null | undefined
}

let library: PriceLibrary | undefined

/**
 * The price table, loaded on first use: about 100 ms of parsing that a run only pays when it
 * prices something (the reporter at the end of a run, `show`, a cost matcher or budget), never
 * a test file that only replays. Loaded synchronously, so that a matcher can price in the test.
 */
function prices(): PriceLibrary {
  library ??= createRequire(ownFile())('@pydantic/genai-prices') as PriceLibrary
  return library
}

/**
 * Each count of a usage, by the name the price table gives it. The parts (cache, audio) are
 * counted within `input_tokens` and `output_tokens`, and the table prices the rest of each at the
 * base rate.
 */
const PRICED_COUNTS: readonly (readonly [keyof TokenUsage, string])[] = [
  ['cached', 'cache_read_tokens'],
  ['cacheWrite', 'cache_write_tokens'],
  ['inputAudio', 'input_audio_tokens'],
  ['outputAudio', 'output_audio_tokens'],
  ['cachedAudio', 'cache_audio_read_tokens'],
]

/**
 * The price in US dollars of one decision's tokens, at the prices of `at` (the recording's
 * time) where the table has a history; `undefined` when the table has no price for its model
 * (a local model, a name it does not know): never 0 for what it cannot price. Each decision is
 * priced alone, as providers bill requests: a long-context rate applies to one request's
 * prompt, not to a run's sum.
 */
export function priceDecision(usage: DecisionUsage, at?: string): number | undefined {
  if (usage.model === undefined) return undefined
  const providers = usage.api === undefined ? [undefined] : priceProvidersOf(usage.api)
  if (!providers) return undefined
  const tokens: Record<string, number> = {}
  for (const [count, key] of PRICED_COUNTS) if (usage[count]) tokens[key] = usage[count]
  tokens.input_tokens = usage.input
  tokens.output_tokens = usage.output
  const timestamp = at === undefined ? undefined : new Date(at)
  const options = timestamp && !Number.isNaN(timestamp.getTime()) ? { timestamp } : {}
  for (const providerId of providers) {
    try {
      const price = prices().calcPrice(tokens, usage.model, {
        ...options,
        ...(providerId === undefined ? {} : { providerId }),
      })
      if (price && Number.isFinite(price.total_price)) return price.total_price
    } catch {
      // Counts the table refuses (more cached tokens than input tokens): no price, not a failed run.
    }
  }
  return undefined
}

/** The file of this module, from the engine's record of the call (no `import.meta` in CommonJS). */
function ownFile(): string {
  const original = Error.prepareStackTrace
  try {
    Error.prepareStackTrace = (_error, frames) => frames
    const frames = new Error().stack as unknown as NodeJS.CallSite[]
    const name = frames[0]?.getFileName()
    if (!name) return `${process.cwd()}/`
    return name.startsWith('file:') ? fileURLToPath(name) : name
  } finally {
    Error.prepareStackTrace = original
  }
}
