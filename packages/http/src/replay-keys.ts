import { existsSync } from 'node:fs'
import { homedir } from 'node:os'
import { join } from 'node:path'
import type { KeyVariable, OtherCredentials } from './codecs/codec.js'
import { keyVariableNames, PROVIDER_KEYS } from './codecs/index.js'
import { applyReplayKeys, type PlannedKey, REPLAY_PLACEHOLDER_KEY } from './replay-key-plan.js'

export { placeholderKey, REPLAY_PLACEHOLDER_KEY } from './replay-key-plan.js'

const PLACEHOLDER = new RegExp(`${REPLAY_PLACEHOLDER_KEY}-for-([A-Z][A-Z0-9_]*)`)

export interface ReplayKeysOptions {
  /**
   * Whether a tape of the run may record (`auto`): a provider whose SDKs find credentials
   * elsewhere (a profile) then gets no placeholder, which would take their place. A tape that
   * records with a placeholder is refused where its request would leave, naming the variable.
   */
  mayRecord?: boolean
  /** Whether a file exists (default: the file system's answer), for the providers' other credentials. */
  exists?: (path: string) => boolean
  /** The home folder `~/` stands for (default: the user's). */
  home?: string
}

/**
 * For a run that may replay (any mode but `update` and `live`): sets the provider key variables
 * that are unset to placeholders, so SDK clients built without a key can be constructed.
 * Returns the names it set. One placeholder per credential: of variables an SDK reads the same
 * key from, only the first, and none while one of them is set.
 *
 * SDK clients read their API key from these variables when they are constructed, and throw
 * "Missing credentials" without one, often at import time, before any test runs; a replay sends
 * no request to a provider, so no key is needed. Each codec lists its provider's variables.
 */
export function provideReplayKeys(
  env: Record<string, string | undefined> = process.env,
  options: ReplayKeysOptions = {},
): string[] {
  return applyReplayKeys(env, planReplayKeys(env, options))
}

/**
 * The credentials {@link provideReplayKeys} would give placeholders, as data: made once where a
 * runner resolves its options, and applied before each test file with `applyReplayKeys`, which
 * loads no codec. A provider whose SDKs find credentials elsewhere in `env` or on disk is left out
 * when the run may record.
 */
export function planReplayKeys(
  env: Record<string, string | undefined> = process.env,
  options: ReplayKeysOptions = {},
): PlannedKey[] {
  const plan: PlannedKey[] = []
  for (const provider of PROVIDER_KEYS) {
    if (options.mayRecord && hasOtherCredentials(provider.otherCredentials, env, options)) continue
    for (const key of provider.keys) {
      const variables = keyVariableNames(key)
      plan.push({ variables, placeholders: placeholdersOf(key, variables) })
    }
  }
  return plan
}

/** The variables of `key` that get a placeholder when none of its variables is set. */
function placeholdersOf(key: KeyVariable, names: readonly string[]): readonly string[] {
  return typeof key === 'object' && 'oneOf' in key ? names.slice(0, 1) : names
}

function hasOtherCredentials(
  other: OtherCredentials | undefined,
  env: Record<string, string | undefined>,
  options: ReplayKeysOptions,
): boolean {
  if (!other) return false
  if (other.variables.some((name) => env[name])) return true
  const exists = options.exists ?? existsSync
  const home = options.home ?? homedir()
  return other.files.some((file) => exists(file.startsWith('~/') ? join(home, file.slice(2)) : file))
}

/**
 * The variable whose placeholder `request` carries, in a header (a bearer token, an API key
 * header, the key id of a signature) or in its URL (`?key=`), if it carries one.
 */
export function placeholderIn(request: Request): string | undefined {
  const found = PLACEHOLDER.exec(request.url)
  if (found) return found[1]
  for (const [, value] of request.headers) {
    const match = PLACEHOLDER.exec(value)
    if (match) return match[1]
  }
  return undefined
}
