import { mkdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { parseCassette } from '@agent-tape/core'
import { cassettePathFor } from '@agent-tape/runner-kit'
import { replayDiverging } from '../../cli/support/record.js'
import { type LongRunOptions, recordLongRun, runLongAgent } from './pages.js'

const TEST_FILE = 'test/long.test.ts'

/** A long recording and the run of it that diverged, as a test run leaves them. */
export interface LongDivergence {
  /** The recording, relative to the root. */
  cassette: string
  /** The run the runner kit kept, relative to the root. */
  run: string
  /** How many decisions the recording holds. */
  recorded: number
  /** How many decisions the run holds: every one up to the miss, the miss last. */
  reached: number
  /** The `seq` of the decision that missed, in the run and at its place in the recording. */
  missedSeq: number
  /** The miss report the replay failed with. */
  message: string
}

/**
 * A long tool loop recorded (`2 × steps - 1` decisions), then replayed by the runner kit as a
 * test runner replays it, with one word of the system prompt edited from the request at
 * `missAt` (0-based; the middle by default) on. Every decision before that request replays;
 * the request misses, the agent's SDK call throws, and the runner kit keeps the run, which
 * ends at the miss, where a replay's miss report points the view. Nothing is cached: each call
 * records and replays afresh under `root` (which gets a `node_modules`, for the cache folder).
 *
 * @example
 * const d = await recordLongDivergence(root, 300) // missedSeq 303: the 152nd model request
 */
export async function recordLongDivergence(
  root: string,
  steps: number,
  options: Omit<LongRunOptions, 'editPromptFrom'> & { missAt?: number } = {},
): Promise<LongDivergence> {
  const missAt = options.missAt ?? Math.floor(steps / 2) + 1
  if (missAt < 1 || missAt >= steps) throw new Error(`missAt ${missAt} is not a request of ${steps} steps`)
  const name = `long-${steps}`
  const cassette = cassettePathFor({ testFile: TEST_FILE, name })
  mkdirSync(join(root, 'node_modules'), { recursive: true })
  await recordLongRun(root, cassette, steps, { ...options, test: `${TEST_FILE} > ${name}` })
  const diverged = await replayDiverging(
    root,
    { file: TEST_FILE, name },
    runLongAgent(steps, { ...options, editPromptFrom: missAt }),
  )
  const read = (path: string) => parseCassette(readFileSync(join(root, path), 'utf8'), path)
  const recording = read(cassette)
  const run = read(diverged.run)
  const missedSeq = 2 * missAt + 1
  const last = run.decisions.at(-1)
  // What the view is measured on must be what was asked for: a run that ends at the edited request.
  if (
    run.decisions.length !== missedSeq ||
    last?.kind !== 'llm' ||
    recording.decisions.some((d) => d.key === last.key)
  )
    throw new Error(
      `the run of ${cassette} did not end at a miss at decision ${missedSeq}: ${run.decisions.length} decisions, the last ${last?.kind} ${last?.key}`,
    )
  return {
    cassette,
    run: diverged.run,
    recorded: recording.decisions.length,
    reached: run.decisions.length,
    missedSeq,
    message: diverged.message,
  }
}
