import { generateText, type LanguageModel, stepCountIs, streamText } from 'ai'
import { AI_RESEARCH_TOOLS } from '../../support/ai-tools.js'
import { type Ask, STEPS } from './research.js'

/**
 * The research agent on the `ai` SDK: `generateText` (each step's calls, finish and usage), or
 * the parts of `streamText`; an error part the SDK streams is thrown as a call would throw it.
 */
export async function aiResearch(model: LanguageModel, question: string, ask: Ask) {
  const options = { model, tools: AI_RESEARCH_TOOLS, stopWhen: stepCountIs(STEPS), prompt: question }
  if (!ask.stream) {
    const result = await generateText(options)
    for (const step of result.steps) {
      // A provider without call ids (Gemini) gets new ones from the SDK on every run.
      const calls = step.toolCalls.map((call) => [call.toolName, call.input, call.providerMetadata])
      ask.received.push({ text: step.text, calls, finish: step.finishReason, usage: step.usage })
    }
    return result.text
  }
  const errors: unknown[] = []
  const result = streamText({ ...options, onError: ({ error }) => void errors.push(error) })
  for await (const part of result.fullStream) {
    if (part.type === 'text-delta') ask.received.push([part.type, part.text])
    if (part.type === 'tool-call') ask.received.push([part.type, part.toolName, part.input])
    if (part.type === 'finish-step') ask.received.push([part.type, part.finishReason, part.usage])
  }
  if (errors.length > 0) throw errors[0]
  return result.text
}
