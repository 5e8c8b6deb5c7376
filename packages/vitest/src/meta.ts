import type { TapeSummaryEntry } from '@agent-tape/runner-kit'

/** What a tape test tells the reporter, on `task.meta` (sent from the worker as JSON). */
export interface TapeMeta {
  /** The tape name, set when the test is defined, so skipped tests still claim their cassette. */
  name: string
  /** The names of the describe blocks around the tape, outermost first: its cassette's folders. */
  describes: string[]
  /** Whether no other tape of the file has this name (it may read its cassette's former path). */
  uniqueName?: boolean
  /** The run's outcome, set when the test finishes. */
  entry?: TapeSummaryEntry
}

/**
 * On a test file's `meta`: what reached each tape after its test had finished, by test. A test's
 * own `meta` is sent to the reporter when it finishes; its file's is sent when the file does.
 */
export type LateUses = Record<string, string[]>

/**
 * On a test file's `meta`: its setup tapes (`beforeAll.tape`, `afterAll.tape`), each as names
 * from the outermost `describe` to the hook, claimed when the file is collected (so a filtered
 * run does not call their cassettes obsolete), and the entry of each that ran.
 */
export interface SetupTapesMeta {
  tapes: string[][]
  entries: TapeSummaryEntry[]
}

declare module 'vitest' {
  interface TaskMeta {
    agentTape?: TapeMeta
    agentTapeLate?: LateUses
    agentTapeSetup?: SetupTapesMeta
  }
}
