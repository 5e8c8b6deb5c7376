import { resolveMode, type TapeMode } from '@agent-tape/core/runtime'
import type { TapeConfig } from './option-table.js'

/**
 * The mode a run's tapes take: the config's `mode` (or `AGENT_TAPE_MODE`, or `auto`) resolved
 * against the environment. Refuses, with a `ConfigError`, a mode that records in CI unless the
 * config or the environment allows it: each runner asks once, before any test runs.
 */
export function runModeOf(
  config: Pick<TapeConfig, 'mode' | 'allowRecordingInCI'>,
  env: Record<string, string | undefined>,
): TapeMode {
  return resolveMode({ mode: config.mode, env, allowRecordingInCI: config.allowRecordingInCI }).mode
}
