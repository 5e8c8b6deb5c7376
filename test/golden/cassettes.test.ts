import { readdirSync, readFileSync } from 'node:fs'
import { join, relative } from 'node:path'
import {
  type Cassette,
  createMemoryStore,
  type DecisionRecord,
  isAgentTapeError,
  openTape,
  parseCassette,
  serializeCassette,
  type Tape,
} from '@agent-tape/core'
import { CASSETTE_FORMAT_VERSION, computeKey, tapeInternals } from '@agent-tape/core/internal'
import { renderSummaryText, summarizeTape } from '@agent-tape/runner-kit'
import { describe, expect, it } from 'vitest'
import { runCli } from '../cli/support/cli.js'
import { REPO_ROOT } from '../support/fixture-project.js'

// What agent-tape makes of every cassette the repository holds (and of test/golden/fixtures, whose
// cassettes have every field a line may have), pinned in files committed with
// it: the keys, the cassette written again after reading it, the timeline `agent-tape show`
// prints, and the state and summary of a tape that records and replays its decisions. A change
// to how cassettes are read, written or reported shows here as a diff of those files; one that
// is meant updates them with `npx vitest run test/golden -u`.

const SOURCES = ['examples', 'packages/core/test-fixtures', 'test/fixtures', 'test/golden/fixtures']
const GOLDEN = join(REPO_ROOT, 'test/golden/__goldens__')

function cassettesUnder(dir: string): string[] {
  const found: string[] = []
  for (const entry of readdirSync(join(REPO_ROOT, dir), { withFileTypes: true })) {
    const path = join(dir, entry.name)
    if (entry.name === 'node_modules') continue
    if (entry.isDirectory()) found.push(...cassettesUnder(path))
    else if (entry.name.endsWith('.jsonl')) found.push(path)
  }
  return found
}

const CASSETTES = SOURCES.flatMap(cassettesUnder)
  .filter((path) => !path.startsWith('examples') || path.includes('__cassettes__'))
  .sort()

/** One folder per cassette, named by its path. */
function goldenPath(cassette: string, file: string): string {
  return join(GOLDEN, cassette.replaceAll('/', '__').replace(/\.jsonl$/, ''), file)
}

function tryParse(path: string): Cassette | Error {
  try {
    return parseCassette(readFileSync(join(REPO_ROOT, path), 'utf8'), path)
  } catch (error) {
    if (!isAgentTapeError(error)) throw error
    return error
  }
}

/** A reading of the error a cassette fails to load with: everything a user sees of it. */
function describeError(error: Error): string {
  const { name, code, message, file, line } = error as Error & { code?: string; file?: string; line?: number }
  return `${JSON.stringify({ name, code, file, line }, null, 2)}\n${message}\n`
}

function keysOf(cassette: Cassette): string {
  return cassette.decisions
    .map((d) => {
      const position = d.lane === undefined ? { step: d.step } : { step: d.step, lane: d.lane }
      const computed = computeKey(d.kind, d.in, position)
      return `#${d.seq} ${d.key} ${computed === d.key ? '=' : computed} ${d.wire ?? '-'}`
    })
    .join('\n')
    .concat('\n')
}

/** What changes on every recording: the time, durations and start times, the runtime and the env salt. */
function maskRecording(text: string): string {
  return text
    .replace(/\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z/g, '<time>')
    .replace(/"runtime":\{[^}]*\}/g, '"runtime":"<runtime>"')
    .replace(/"ms":\d+/g, '"ms":0')
    .replace(/"at":\d+/g, '"at":0')
    .replace(/"envSalt":"[0-9a-f]+"/g, '"envSalt":"<salt>"')
    .replace(/sha256:[0-9a-f]{16}\b/g, 'sha256:<hash>')
}

/**
 * Feeds the decisions of a recording to `tape` as a run would make them: each in its lane, a
 * model decision starting the next step. Tools and model calls answer with what was recorded.
 */
async function feed(tape: Tape, decisions: readonly DecisionRecord[]): Promise<string[]> {
  const outcomes: string[] = []
  for (const d of decisions) {
    const run = () =>
      tape.call(d.kind, d.in, () => {
        if (d.err) throw Object.assign(new Error(d.err.message), { name: d.err.name })
        return d.out
      })
    try {
      const value = await (d.lane === undefined ? run() : tape.lane(d.lane, run))
      outcomes.push(`#${d.seq} ${JSON.stringify(value) ?? 'undefined'}`)
    } catch (error) {
      outcomes.push(`#${d.seq} threw ${(error as Error).name}: ${(error as Error).message.split('\n')[0]}`)
    }
  }
  return outcomes
}

/** Records the cassette's decisions into a new cassette, then replays them from it. */
async function recordAndReplay(path: string, cassette: Cassette): Promise<Record<string, string>> {
  const store = createMemoryStore()
  const options = {
    id: cassette.header.test,
    cassettePath: path,
    store,
    env: {},
    rerecordCommand: 'AGENT_TAPE_MODE=update <command>',
    // What the header says of the recording, given again: the new header holds it too.
    ...(cassette.header.sdks ? { sdks: cassette.header.sdks } : {}),
    ...(cassette.header.source ? { source: cassette.header.source } : {}),
    ...(cassette.header.ignore ? { ignore: cassette.header.ignore } : {}),
  }
  const recording = await openTape({ ...options, mode: 'update' })
  const recordedOutcomes = await feed(recording, cassette.decisions)
  const recorded = await recording.finish()
  const written = (await store.read(path)) ?? ''
  const replaying = await openTape({ ...options, mode: 'replay' })
  const replayedOutcomes = await feed(replaying, cassette.decisions)
  const replayed = await replaying.finish()
  // A run whose last decision asks for something else: the miss report and the run kept for the view.
  const diverging = await openTape({ ...options, mode: 'replay' })
  const last = cassette.decisions.length - 1
  const divergedOutcomes = await feed(
    diverging,
    cassette.decisions.map((d, i) => (i === last ? { ...d, in: { changed: d.in } } : d)),
  )
  const diverged = await diverging.finish()
  const run = tapeInternals(diverging).divergedRun()
  const summary = renderSummaryText({
    entries: [
      summarizeTape(recorded, `${path} (record)`),
      summarizeTape(replayed, `${path} (replay)`),
      summarizeTape(diverged, `${path} (diverged)`),
    ],
    obsolete: [],
  })
  return {
    'recorded.jsonl': maskRecording(written),
    'recorded-state.json': `${JSON.stringify(recorded, null, 2)}\n`,
    'replayed-state.json': `${JSON.stringify(replayed, null, 2)}\n`,
    'outcomes.txt': `record\n${recordedOutcomes.join('\n')}\nreplay\n${replayedOutcomes.join('\n')}\n`,
    'summary.txt': summary,
    'diverged.txt': `${divergedOutcomes.join('\n')}\n${diverging.failure()?.message ?? 'no failure'}\n`,
    'diverged-run.jsonl': run ? maskRecording(serializeCassette(run)) : 'no run\n',
  }
}

it('finds the cassettes of the examples and the fixtures', () => {
  expect(CASSETTES.filter((p) => p.startsWith('examples')).length).toBeGreaterThanOrEqual(4)
  expect(CASSETTES.filter((p) => p.startsWith('test/fixtures')).length).toBeGreaterThanOrEqual(2)
  expect(CASSETTES.filter((p) => p.startsWith('packages/core')).length).toBeGreaterThanOrEqual(12)
})

describe.each(CASSETTES)('%s', (path) => {
  const read = tryParse(path)

  it('reads, keys and writes as pinned', async () => {
    if (read instanceof Error) {
      await expect(describeError(read)).toMatchFileSnapshot(goldenPath(path, 'error.txt'))
      return
    }
    await expect(keysOf(read)).toMatchFileSnapshot(goldenPath(path, 'keys.txt'))
    await expect(serializeCassette(read)).toMatchFileSnapshot(goldenPath(path, 'written.jsonl'))
    if (read.header.agentTape !== CASSETTE_FORMAT_VERSION) {
      const current = { ...read, header: { ...read.header, agentTape: CASSETTE_FORMAT_VERSION } }
      await expect(serializeCassette(current)).toMatchFileSnapshot(goldenPath(path, 'written-current.jsonl'))
    }
  })

  it('shows as pinned', async () => {
    const shown = await runCli(['show', path], REPO_ROOT)
    await expect(`exit ${shown.code}\n${shown.stdout}${shown.stderr}`).toMatchFileSnapshot(
      goldenPath(path, 'show.txt'),
    )
    if (read instanceof Error) return
    const json = await runCli(['show', '--json', path], REPO_ROOT)
    await expect(json.stdout + json.stderr).toMatchFileSnapshot(goldenPath(path, 'show.json'))
  })

  it.runIf(!(read instanceof Error))('records and replays as pinned', async () => {
    const results = await recordAndReplay(path, read as Cassette)
    for (const [file, text] of Object.entries(results)) {
      await expect(text).toMatchFileSnapshot(goldenPath(path, file))
    }
  })
})

it('keeps one golden folder per cassette and no other', () => {
  const folders = readdirSync(GOLDEN, { withFileTypes: true })
    .filter((entry) => entry.isDirectory())
    .map((entry) => entry.name)
    .sort()
  const expected = CASSETTES.map((p) => relative(GOLDEN, goldenPath(p, '')).replace(/\/$/, '')).sort()
  expect(folders).toEqual(expected)
})
