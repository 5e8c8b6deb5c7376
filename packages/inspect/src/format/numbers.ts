import type { TokenUsage } from '@agent-tape/http/internal'

// How agent-tape prints numbers. The runner kit's matchers and budgets, loaded with a runner's
// setup file, print them too: this module imports nothing at run time, so that entry stays light.

/**
 * A count as everything agent-tape prints it, grouped by thousands: `1,152`. The run summary,
 * `show`, `diff` and the view all go through it, so one number never reads two ways.
 */
export function formatCount(n: number): string {
  return String(n).replace(/\B(?=(\d{3})+(?!\d))/g, ',')
}

/** Token usage as `1,080 in / 72 out`. */
export function tokens(usage: TokenUsage): string {
  return `${formatCount(usage.input)} in / ${formatCount(usage.output)} out`
}

/** Tokens in all, with their parts: `1,690 tokens (1,500 in, 300 of them cached, 190 out)`. */
export function describeTokens(tokens: TokenUsage): string {
  const total = tokens.input + tokens.output
  const cached = tokens.cached ? `, ${formatCount(tokens.cached)} of them cached` : ''
  const written = tokens.cacheWrite ? `, ${formatCount(tokens.cacheWrite)} written to cache` : ''
  return `${formatCount(total)} tokens (${formatCount(tokens.input)} in${cached}${written}, ${formatCount(tokens.output)} out)`
}

/**
 * Dollars as people read them: cents from a dime up (`$0.41`, `$12.30`), two significant
 * digits below (`$0.0043`, `$0.004`), so a cheap run never reads as `$0.00`.
 */
export function formatUsd(usd: number): string {
  if (usd === 0) return '$0'
  if (usd >= 0.1) {
    const [whole, cents] = usd.toFixed(2).split('.') as [string, string]
    return `$${formatCount(Number(whole))}.${cents}`
  }
  const decimals = Math.min(12, 1 - Math.floor(Math.log10(usd)))
  return `$${usd.toFixed(decimals).replace(/0+$/, '')}`
}

export function modelName(m: { model?: string }): string {
  return m.model ?? '(no model named)'
}
