import type { TapeMode } from '@agent-tape/core/context'
import type { ReportConfig, TapeConfig, TapeSummaryEntry } from '@agent-tape/runner-kit'
import type { TapeNameRegistry } from '@agent-tape/runner-kit/tape'

/**
 * What the environment (outside Jest's sandbox) hands to the setup file and `it.tape` (inside
 * it), on the sandbox's global: the resolved config, the name path of the test being defined
 * (from jest-circus's `add_test` event) and the lists the reporter reads when the file ends.
 */
export interface TapeBridge {
  config: TapeConfig
  /** The mode of the file's tapes, as the environment resolved it. */
  runMode: TapeMode
  /** The project root (`rootDir`). */
  root: string
  /** The test file, relative to the root, with `/` separators. */
  testFile: string
  /** Environment for mode resolution: the process's, with Jest's CI verdict and the update switch applied. */
  env: Record<string, string | undefined>
  /** `npx`, `pnpm`, … for the re-record command. */
  exec: string
  /** Jest's default test timeout (`testTimeout`), in milliseconds. */
  testTimeout: number
  /** Names from the outermost `describe` to the test defined last. */
  lastDefined: string[] | undefined
  /** The describe blocks, outermost first, around the hook defined last (from `add_hook`). */
  lastHookScope?: string[] | undefined
  /**
   * Every tape the file defines, skipped or filtered out ones included, as names from the
   * outermost `describe` to the tape name.
   */
  tapes: string[][]
  /** The file's tape names (tests' and setup tapes'): tells whether a name is the only one of its kind. */
  registry?: TapeNameRegistry
  /** One entry per tape that ran. */
  entries: TapeSummaryEntry[]
  /**
   * Removes the HTTP interception the setup file installed. The environment calls it once every
   * hook of the file has run (`afterAll.tape` of the file included), not in a hook of its own.
   */
  disposeBoundary?: (() => void) | undefined
}

export const BRIDGE_KEY = '__agentTapeJest'

/** The report one test file leaves for the reporter. */
export interface FileReport {
  root: string
  /** The run summary's slice of the file's config. */
  config: Partial<ReportConfig>
  testFile: string
  testPath: string
  tapes: string[][]
  entries: TapeSummaryEntry[]
}

/** Set by the reporter: the folder where each test file's environment leaves its {@link FileReport}. */
export const REPORT_DIR_ENV = 'AGENT_TAPE_JEST_REPORT_DIR'
/** Set by the `agent-tape-jest` wrapper for `--prune-cassettes`. */
export const PRUNE_ENV = 'AGENT_TAPE_PRUNE_CASSETTES'
/** Set by the `agent-tape-jest` wrapper for `--fail-on-obsolete`. */
export const FAIL_ON_OBSOLETE_ENV = 'AGENT_TAPE_FAIL_ON_OBSOLETE'
