import type { TapeMode } from './modes.js'

/** What a tape does with boundaries in this run. */
export type TapeAction = 'replay' | 'record' | 'passthrough'

/** How one decision of this run (or of the cassette) ended up. */
export type DecisionStatus = 'replayed' | 'recorded' | 'missed' | 'unused' | 'passthrough'

export interface DecisionState {
  seq: number
  key: string
  kind: string
  step: number
  lane?: string
  /** Whether it asked a model for an answer (a model request, a session's turn): it started its step. */
  asksModel: boolean
  label: string
  status: DecisionStatus
}

export interface DivergenceState {
  code: string
  message: string
}

/**
 * A tape's run state as plain data, for reporters and matchers. `status` is `running` until
 * `finish()`; then `clean`, `diverged`, `recorded` or `passthrough`.
 */
export interface TapeState {
  id: string
  cassettePath: string
  mode: TapeMode
  action: TapeAction
  status: 'running' | 'clean' | 'diverged' | 'recorded' | 'passthrough'
  /** Decisions in the cassette this tape replays (0 when it records or passes through). */
  inCassette: number
  replayed: number
  /** Decisions recorded into a new cassette during this run (as the run summary counts them). */
  recorded: number
  missed: number
  unused: number
  /** Whether the cassette file was written by this run. */
  written: boolean
  /** Why nothing was written, when it was not. */
  writeSkipped?: 'replay' | 'passthrough' | 'unchanged' | 'refused'
  normalizations: Record<string, number>
  /** How many decisions each ignore path left a field out of (present when the tape has ignores). */
  ignored?: Record<string, number>
  warnings: string[]
  /** Tools whose live result differed from the recording, in `live-tools` mode: `step 2, tool "x"`. */
  drifted: string[]
  divergences: DivergenceState[]
  decisions: DecisionState[]
}
