import { createOpenAI } from '@ai-sdk/openai'
import { generateText, stepCountIs, streamText, tool } from 'ai'
import { z } from 'zod'

/** Tool implementations as the runner hands them over (taped in tests). */
export interface TravelTools {
  get_weather: (args: { city: string }) => Promise<unknown>
  find_flights: (args: { from: string; to: string }) => Promise<unknown>
}

const PROMPT =
  'You plan weekend trips from Paris. Compare the weather first, then find a flight to the sunnier city.'

function model() {
  const openai = createOpenAI({
    apiKey: process.env.OPENAI_API_KEY ?? 'replay-needs-no-key',
    ...(process.env.OPENAI_BASE_URL ? { baseURL: process.env.OPENAI_BASE_URL } : {}),
  })
  return openai('gpt-4.1')
}

function aiTools(impl: TravelTools) {
  return {
    get_weather: tool({
      description: 'Weather forecast for the weekend',
      inputSchema: z.object({ city: z.string() }),
      execute: (args) => impl.get_weather(args),
    }),
    find_flights: tool({
      description: 'Flights between two cities',
      inputSchema: z.object({ from: z.string(), to: z.string() }),
      execute: (args) => impl.find_flights(args),
    }),
  }
}

/** Plans a trip with generateText: the SDK runs the tool steps itself until the model answers. */
export async function planTrip(request: string, impl: TravelTools) {
  const result = await generateText({
    model: model(),
    system: PROMPT,
    prompt: request,
    tools: aiTools(impl),
    stopWhen: stepCountIs(6),
  })
  return {
    text: result.text,
    steps: result.steps.map((s) => s.toolCalls.map((c) => c.toolName)),
    outputTokens: result.totalUsage.outputTokens,
  }
}

/** The same agent streamed: the text arrives in deltas, as a chat UI would show it. */
export async function planTripStreamed(request: string, impl: TravelTools) {
  const result = streamText({
    model: model(),
    system: PROMPT,
    prompt: request,
    tools: aiTools(impl),
    stopWhen: stepCountIs(6),
  })
  const deltas: string[] = []
  for await (const delta of result.textStream) deltas.push(delta)
  return { text: await result.text, deltas: deltas.length, steps: (await result.steps).length }
}
