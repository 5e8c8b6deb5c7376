import type { Turn } from '@agent-tape/fake-provider'

/** How many tool results a request carries, whatever the provider's wire format. */
export function toolResultsIn(body: unknown): number {
  const text = JSON.stringify(body)
  const count = (marker: string) => text.split(marker).length - 1
  return (
    count('"role":"tool"') +
    count('"type":"tool_result"') +
    count('"type":"function_call_output"') +
    count('"toolResult":') +
    count('"functionResponse":')
  )
}

/** A research script: search, then fetch a page, then answer (the same for every provider). */
export function researchScript(body: unknown): Turn {
  const seen = toolResultsIn(body)
  if (seen === 0) return { toolCalls: [{ name: 'search', args: { query: 'tape recorders history' } }] }
  if (seen === 1) return { toolCalls: [{ name: 'fetch_page', args: { url: 'https://example.org/tape' } }] }
  return {
    text: ['Magnetic tape ', 'recording was ', 'invented in 1928.'],
    usage: { inputTokens: 300, outputTokens: 9 },
  }
}

export const RESEARCH_TOOLS = {
  search: ({ query }: { query: string }) => `3 results for ${query}`,
  fetch_page: ({ url }: { url: string }) => `${url}: Fritz Pfleumer patented magnetic tape in 1928.`,
}
