// A scripted stand-in for the model, served over the OpenAI Responses wire format by
// @agent-tape/fake-provider: both forecasts in one turn (parallel tool calls), then a flight,
// then the answer.
export const SEED = 'vercel-agent'

export function environment(provider) {
  return { OPENAI_BASE_URL: provider.openaiBaseURL }
}

export function reply(body) {
  const outputs = (body.input ?? []).filter((item) => item.type === 'function_call_output').length
  const usage = { inputTokens: 250 + 80 * outputs, outputTokens: 30 }
  if (outputs === 0) {
    return {
      toolCalls: [
        { name: 'get_weather', args: { city: 'Lisbon' } },
        { name: 'get_weather', args: { city: 'Oslo' } },
      ],
      usage,
    }
  }
  if (outputs === 2)
    return { toolCalls: [{ name: 'find_flights', args: { from: 'Paris', to: 'Lisbon' } }], usage }
  return { text: ['Go to Lisbon: ', '19°C and sunny, ', 'flight TP89 for 89 EUR.'], usage }
}
