/**
 * The variables SDK clients read their API key from when they are constructed. `new OpenAI()`
 * throws "Missing credentials" without one, often at import time, before any test runs; in
 * replay no request reaches a provider, so no key is needed and a placeholder lets the client
 * be built.
 */
const PROVIDER_KEY_VARIABLES = [
  'OPENAI_API_KEY',
  'ANTHROPIC_API_KEY',
  'AZURE_OPENAI_API_KEY',
  'GOOGLE_API_KEY',
  'GEMINI_API_KEY',
  'GOOGLE_GENERATIVE_AI_API_KEY',
  'MISTRAL_API_KEY',
  'GROQ_API_KEY',
  'XAI_API_KEY',
  'DEEPSEEK_API_KEY',
  'COHERE_API_KEY',
  'OPENROUTER_API_KEY',
  'TOGETHER_API_KEY',
  'FIREWORKS_API_KEY',
  'PERPLEXITY_API_KEY',
]

/** The value the placeholder keys have: no provider accepts it, and no request carries it out. */
export const REPLAY_PLACEHOLDER_KEY = 'replay-placeholder-key'

/**
 * For a run that only replays (`replay` mode, as in CI): sets every provider key variable that
 * is unset to a placeholder, so SDK clients built without a key can be constructed. Returns the
 * names it set. Never call it for a run that may record.
 */
export function provideReplayKeys(env: Record<string, string | undefined> = process.env): string[] {
  const set: string[] = []
  for (const name of PROVIDER_KEY_VARIABLES) {
    if (env[name]) continue
    env[name] = REPLAY_PLACEHOLDER_KEY
    set.push(name)
  }
  return set
}
