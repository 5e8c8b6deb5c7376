import { appendFileSync, readFileSync } from 'node:fs'
import { isAbsolute, join, relative, resolve } from 'node:path'
import type { CassetteStore } from '@agent-tape/core/internal'
import { createFileStore } from '@agent-tape/core/node'
import { ConfigError } from '@agent-tape/core/runtime'

/**
 * Where a run writes the cassettes it records, instead of over the ones in the project: each
 * at its own path under this folder (`<folder>/test/__cassettes__/…`), while every cassette is
 * still read from the project. A run that re-records against the committed cassettes without
 * touching them: `agent-tape drift` sets it, and so can a script that compares recordings.
 */
export const CASSETTE_OUT_ENV = 'AGENT_TAPE_CASSETTE_OUT'

/**
 * The folder of one run of `agent-tape drift`: each tape notes its outcome in `tapes.jsonl`
 * there, and reads the run's plan from `plan.json` when it has one (which tapes may record, the
 * budget and its ledger, `spend.jsonl`). Set by the drift command for the runs it starts.
 */
export const DRIFT_DIR_ENV = 'AGENT_TAPE_DRIFT_DIR'

/** What `agent-tape drift` asks of the tapes of a run it starts (`plan.json` in its folder). */
export interface DriftPlan {
  /**
   * The cassettes (absolute paths) whose tapes record, live: every other tape replays, so that
   * a test whose code changed its requests makes no live call. Absent: every tape as the mode says.
   */
  live?: string[]
  /** The most the run's live model requests may spend, all tapes and workers together. */
  budget?: { usd?: number; tokens?: number }
}

/** One tape of a drift run, as it noted itself in `tapes.jsonl`. */
export interface DriftTapeNote {
  test: string
  /** The cassette, absolute. */
  cassette: string
  mode: string
  /** The tape's end state, or `error` when it could not open. */
  status: string
  /** Whether the recording was written. */
  written: boolean
  /** Set when the recording was given up: a decision the run needed was refused (a budget, a missing key). */
  refused?: true
  /** Where a recording is written instead of over the cassette (see {@link CASSETTE_OUT_ENV}), absolute. */
  out?: string
  /** Where the run of a replay that diverged was kept, absolute (see `TapeSummaryEntry.run`). */
  run?: string
  /** The code and the message of the failure the tape fails its test with. */
  failure?: { code: string; message: string }
}

/** The store of a tape: the project's, with writes taken to {@link CASSETTE_OUT_ENV}'s folder when it is set. */
export function cassetteStoreFor(root: string, env: Record<string, string | undefined>): CassetteStore {
  const project = createFileStore(root)
  const out = env[CASSETTE_OUT_ENV]
  if (!out) return project
  return {
    read: (path) => project.read(path),
    write: (path, text) => project.write(writtenPath(root, path, out), text),
  }
}

/** Where the cassette at `path` is written when {@link CASSETTE_OUT_ENV} is `out`, absolute. */
export function writtenPath(root: string, path: string, out: string): string {
  return join(resolve(root, out), outPath(root, path))
}

/** Where a cassette at `path` (relative to the root, or absolute) goes in the out folder. */
export function outPath(root: string, path: string): string {
  const inside = relative(root, resolve(root, path))
  // A cassette outside the project keeps its place under the folder, by its absolute path.
  return inside.startsWith('..') || isAbsolute(inside)
    ? join('_outside', resolve(root, path).replace(/^[A-Za-z]:/, ''))
    : inside
}

/** The plan of the drift run in `dir`, if it has one. */
export function readDriftPlan(dir: string): DriftPlan | undefined {
  let text: string
  try {
    text = readFileSync(join(dir, 'plan.json'), 'utf8')
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined
    throw error
  }
  try {
    return JSON.parse(text) as DriftPlan
  } catch (error) {
    throw new ConfigError({
      what: `Cannot read the drift plan ${join(dir, 'plan.json')}`,
      why: `it is not JSON (${(error as Error).message})`,
      fix: `Unset ${DRIFT_DIR_ENV}: it is set by agent-tape drift for the runs it starts`,
    })
  }
}

/** Notes a tape's outcome in the drift folder: one line, appended whole (workers append side by side). */
export function noteDriftTape(dir: string, note: DriftTapeNote): void {
  appendFileSync(join(dir, 'tapes.jsonl'), `${JSON.stringify(note)}\n`)
}
