import type { TapeSummaryEntry } from '@agent-tape/runner-kit'

/** What a tape test tells the reporter, on `task.meta` (sent from the worker as JSON). */
export interface TapeMeta {
  /** The tape name, set when the test is defined, so skipped tests still claim their cassette. */
  name: string
  /** The run's outcome, set when the test finishes. */
  entry?: TapeSummaryEntry
}

declare module 'vitest' {
  interface TaskMeta {
    agentTape?: TapeMeta
  }
}
