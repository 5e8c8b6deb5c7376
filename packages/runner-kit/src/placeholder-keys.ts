import { replaysModels, type TapeMode } from '@agent-tape/core/runtime'
import type { ReplayKeysOptions } from '@agent-tape/http'
import { type PlannedKey, planReplayKeys } from '@agent-tape/http/internal'

/**
 * Whether a run in `mode` gives unset provider key variables placeholders, and how: every run that
 * may replay does, before the test files load, as SDK clients read their key when they are built,
 * at import time. `auto` and `resume` may record as well: a provider whose SDKs find credentials elsewhere then
 * keeps them, and a tape that records with a placeholder is refused, naming the variable.
 * `update` and `live` reach the providers with every tape: no placeholders.
 */
export function placeholderKeysFor(mode: TapeMode): ReplayKeysOptions | undefined {
  if (replaysModels(mode)) return { mayRecord: false }
  if (mode === 'auto' || mode === 'resume') return { mayRecord: true }
  return undefined
}

/**
 * The placeholders of a run in `mode`, planned once where the runner resolves its options (the
 * Vitest plugin, in the main process), for each test file's setup to apply with `applyReplayKeys`
 * before the file loads: the setup then loads none of the codecs the plan is made from.
 */
export function replayKeyPlanFor(
  mode: TapeMode,
  env: Record<string, string | undefined> = process.env,
): PlannedKey[] {
  const keys = placeholderKeysFor(mode)
  return keys ? planReplayKeys(env, keys) : []
}
