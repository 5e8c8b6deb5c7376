import { KEY_VARIABLES } from './codecs/index.js'

/** The value the placeholder keys have: no provider accepts it, and no request carries it out. */
export const REPLAY_PLACEHOLDER_KEY = 'replay-placeholder-key'

/**
 * For a run that only replays (`replay` mode, as in CI): sets every provider key variable that
 * is unset to a placeholder, so SDK clients built without a key can be constructed. Returns the
 * names it set. Never call it for a run that may record.
 *
 * SDK clients read their API key from these variables when they are constructed, and throw
 * "Missing credentials" without one, often at import time, before any test runs; in replay no
 * request reaches a provider, so no key is needed. Each codec lists its provider's variables.
 */
export function provideReplayKeys(env: Record<string, string | undefined> = process.env): string[] {
  const set: string[] = []
  for (const name of KEY_VARIABLES) {
    if (env[name]) continue
    env[name] = REPLAY_PLACEHOLDER_KEY
    set.push(name)
  }
  return set
}
