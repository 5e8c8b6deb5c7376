/**
 * What every placeholder key starts with: no provider accepts it, and no request that carries
 * one leaves the machine (see `placeholderIn`). The variable it stands in for follows
 * (`replay-placeholder-key-for-OPENAI_API_KEY`), so a refusal can name it.
 */
export const REPLAY_PLACEHOLDER_KEY = 'replay-placeholder-key'

/** The placeholder that stands in for the variable `name`. */
export function placeholderKey(name: string): string {
  return `${REPLAY_PLACEHOLDER_KEY}-for-${name}`
}

/**
 * One credential a run's placeholders may stand in for, as planned where the runner resolves its
 * options (see `planReplayKeys`): the variables an SDK reads it from, and those that get a
 * placeholder when none of them is set.
 */
export interface PlannedKey {
  variables: readonly string[]
  placeholders: readonly string[]
}

/**
 * Sets the planned placeholders in `env`, each credential's only while none of its variables is
 * set there. Returns the names it set. What a runner's setup file does before each test file
 * loads, with a plan made once for the run: it needs none of the codecs the plan was made from.
 */
export function applyReplayKeys(
  env: Record<string, string | undefined>,
  plan: readonly PlannedKey[],
): string[] {
  const set: string[] = []
  for (const key of plan) {
    if (key.variables.some((name) => env[name])) continue
    for (const name of key.placeholders) {
      env[name] = placeholderKey(name)
      set.push(name)
    }
  }
  return set
}
