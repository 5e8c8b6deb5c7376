import type { TapeMode } from '@agent-tape/core/context'
import type { PlannedKey } from '@agent-tape/http/install'
import type { RunnerOptions, TapeConfig } from '@agent-tape/runner-kit'

export type { ReplayTiming } from '@agent-tape/http'

/**
 * Options of the {@link agentTape} plugin: agent-tape's options, the same as Jest's, plus the
 * run summary switch. Everything here is data, because it is sent to the test workers;
 * function-valued redactors and normalizers go in a setup file through `configureTape()` from
 * `@agent-tape/vitest`. A string in `allowSecrets` is a literal value.
 */
export interface AgentTapeOptions extends RunnerOptions {
  /** Print the run summary (default true). */
  summary?: boolean
}

/** What the plugin provides to every test worker (`inject('agentTape')`). */
export interface ProvidedTapeConfig extends TapeConfig {
  root: string
  /** `npx`, `pnpm`, … for the re-record command. */
  exec: string
  /**
   * The mode of the run's tapes, resolved once in the main process: what the boundaries do outside
   * every tape (a client connected in `beforeAll`) follows it.
   */
  runMode: TapeMode
  /** The placeholder keys of a run that may replay, planned once: each test file's setup sets them. */
  replayKeys: PlannedKey[]
}

declare module 'vitest' {
  interface ProvidedContext {
    agentTape: ProvidedTapeConfig
  }
}

/** How the plugin reads its options. */
export const VITEST_CONFIG_SOURCE = {
  where: 'the agentTape() options',
  extraOptions: ['summary'],
  secretStrings: 'literal',
  patternFix:
    'Write it as a RegExp or its source string, or register function rules with configureTape() in a setup file',
} as const
