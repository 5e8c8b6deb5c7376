import { RESEARCH_TOOLS } from '../../support/scripts.js'

/**
 * How the contract asks a client's research agent: streamed or not, and where to keep every
 * answer, chunk or event the SDK hands the agent (a replay must hand it the same).
 */
export interface Ask {
  stream: boolean
  received: unknown[]
}

/** Steps an agent may take before it gives up. */
export const STEPS = 5

/** Runs the research tool the model asked for. */
export function runTool(name: string, args: unknown): string {
  const tool = (RESEARCH_TOOLS as Record<string, (args: never) => string>)[name]
  if (!tool) throw new Error(`the model asked for an unknown tool: ${name}`)
  return tool(args as never)
}
