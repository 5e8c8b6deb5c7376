// A scripted stand-in for Claude, served over the Anthropic Messages wire format (streamed, with
// named events and pings) by @agent-tape/fake-provider. It searches, reads two pages (one of
// which does not exist, so the agent has to handle a tool error), saves a note and answers.
export const SEED = 'research-agent'

export function environment(provider) {
  return { ANTHROPIC_BASE_URL: provider.anthropicBaseURL }
}

export function reply(body) {
  const results = (body.messages ?? []).flatMap((m) =>
    Array.isArray(m.content) ? m.content.filter((b) => b.type === 'tool_result') : [],
  )
  const usage = { inputTokens: 400 + 150 * results.length, outputTokens: 40 }
  switch (results.length) {
    case 0:
      return {
        text: 'Let me search the library.',
        toolCalls: [{ name: 'search', args: { query: 'magnetic tape' } }],
        usage,
      }
    case 1:
      return {
        toolCalls: [{ name: 'fetch_page', args: { url: 'https://example.org/magnetic-tape' } }],
        usage,
      }
    case 2:
      return {
        text: 'That page is missing; trying the one search returned.',
        toolCalls: [{ name: 'fetch_page', args: { url: 'https://example.org/tape' } }],
        usage,
      }
    case 3:
      return {
        toolCalls: [{ name: 'save_note', args: { text: 'Pfleumer, 1928 (example.org/tape)' } }],
        usage,
      }
    default:
      return {
        text: ['Fritz Pfleumer ', 'invented magnetic tape ', 'in 1928 (https://example.org/tape).'],
        usage: { inputTokens: 1100, outputTokens: 21 },
      }
  }
}
