import { tool } from 'ai'
import { z } from 'zod'
import { RESEARCH_TOOLS } from './scripts.js'

/** The research agent's tools as the `ai` SDK declares them, for every provider's `ai` tests. */
export const AI_RESEARCH_TOOLS = {
  search: tool({
    description: 'Web search',
    inputSchema: z.object({ query: z.string() }),
    execute: async (a) => RESEARCH_TOOLS.search(a),
  }),
  fetch_page: tool({
    description: 'Fetch a page',
    inputSchema: z.object({ url: z.string() }),
    execute: async (a) => RESEARCH_TOOLS.fetch_page(a),
  }),
}
