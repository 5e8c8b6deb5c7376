import { existsSync } from 'node:fs'
import { mkdir, readFile, writeFile } from 'node:fs/promises'
import { isAbsolute, join, relative } from 'node:path'
import { ALLOW_CI_RECORDING_ENV, MODE_ENV } from '@agent-tape/core/internal'
import { diffCassettes } from '@agent-tape/inspect'
import {
  CACHE_DIR_ENV,
  CASSETTE_OUT_ENV,
  DRIFT_DIR_ENV,
  type DriftPlan,
  type DriftTapeNote,
  readLedger,
  toPosix,
} from '@agent-tape/runner-kit'
import { loadCassette } from '../cassette-files.js'
import { spawnCommand } from '../recorded-command/spawn-command.js'
import { classifyDiff, type DriftClass, type FirstChange, inputChange, position } from './classify.js'
import { testCommandFor } from './test-command.js'

/** One test of a drift run, classified. */
export interface DriftRow {
  test: string
  /** The committed cassette, relative to the working folder. */
  cassette: string
  class: DriftClass
  first?: FirstChange
}

/** What the live run's model requests spent, and what the budget refused. */
export interface DriftSpend {
  sent: number
  refused: number
  tokens: number
  usd: number
  budget?: { usd?: number; tokens?: number }
}

export interface DriftReport {
  rows: DriftRow[]
  spend: DriftSpend
  /** The test command of each phase, as run. */
  commands: { replay: string; live?: string }
}

export interface DriftInput {
  cwd: string
  env: Record<string, string | undefined>
  /** The folder the run keeps its notes, recordings and ledger in (never the project's cassettes). */
  scratch: string
  /** The test command after `--`, if one was given. */
  command: string[] | undefined
  /** Test files or filters for the runner. */
  filters: string[]
  /** Only these cassettes (absolute) are classified; all when absent. */
  cassettes: Set<string> | undefined
  budget: DriftPlan['budget']
  /** The output of the test runs, for an error that needs it. */
  output(text: string): void
}

/** Codes of a replay that failed because the code asked for something else than the recording. */
const CODE_FAILURES = new Set(['ERR_TAPE_MISS', 'ERR_TAPE_UNUSED', 'ERR_TAPE_NO_CASSETTE'])

/**
 * Runs the tests twice. First replaying (`replay`): a tape whose code asks for a request its
 * cassette does not hold is the code's drift, and sends nothing live. Then the others live
 * (`update`), each recording written to the scratch folder and compared with the committed
 * cassette; the tapes already classified replay again. The committed cassettes are only read.
 */
export async function runDrift(input: DriftInput): Promise<DriftReport> {
  const replay = await runPhase(input, 'replay', undefined, input.filters)
  const rows = new Map<string, DriftRow>()
  const candidates: DriftTapeNote[] = []
  for (const note of replay.notes) {
    if (input.cassettes && !input.cassettes.has(note.cassette)) continue
    const code = note.failure?.code
    if (code && CODE_FAILURES.has(code)) rows.set(note.cassette, await codeRow(input, note))
    else if (note.status === 'error')
      rows.set(note.cassette, errorRow(input, note, 'the tape could not open'))
    else candidates.push(note)
  }
  const report: DriftReport = {
    rows: [],
    spend: { sent: 0, refused: 0, tokens: 0, usd: 0, ...(input.budget ? { budget: input.budget } : {}) },
    commands: { replay: replay.command },
  }
  if (candidates.length > 0) {
    const plan: DriftPlan = {
      live: candidates.map((n) => n.cassette),
      ...(input.budget ? { budget: input.budget } : {}),
    }
    // The test files of the tapes that go live, when agent-tape runs the runner itself.
    const files = input.command ? input.filters : unique(candidates.map((n) => testFileOf(n.test)))
    const live = await runPhase(input, 'live', plan, files)
    report.commands.live = live.command
    const byCassette = new Map(live.notes.map((n) => [n.cassette, n]))
    for (const before of candidates) {
      rows.set(before.cassette, await liveRow(input, before, byCassette.get(before.cassette)))
    }
    const ledger = join(input.scratch, 'live', 'spend.jsonl')
    if (existsSync(ledger)) {
      const state = readLedger(await readFile(ledger, 'utf8'), input.budget ?? {})
      Object.assign(report.spend, {
        sent: state.sent,
        refused: state.refused.length,
        tokens: state.spent.tokens,
        usd: state.spent.usd,
      })
    }
  }
  report.rows = [...rows.values()].sort((a, b) => (a.test < b.test ? -1 : a.test > b.test ? 1 : 0))
  return report
}

async function runPhase(
  input: DriftInput,
  phase: 'replay' | 'live',
  plan: DriftPlan | undefined,
  filters: readonly string[],
): Promise<{ notes: DriftTapeNote[]; command: string }> {
  const dir = join(input.scratch, phase)
  await mkdir(dir, { recursive: true })
  if (plan) await writeFile(join(dir, 'plan.json'), JSON.stringify(plan))
  const { argv } = testCommandFor(input.cwd, input.command, filters)
  const env: Record<string, string | undefined> = {
    ...input.env,
    [MODE_ENV]: phase === 'replay' ? 'replay' : 'update',
    [DRIFT_DIR_ENV]: dir,
    // Diverged runs are kept with the scratch folder, not in the project's cache.
    [CACHE_DIR_ENV]: join(input.scratch, 'runs'),
  }
  // The drift report is the job's summary; the runners' own run summaries would only repeat it.
  delete env.GITHUB_STEP_SUMMARY
  if (phase === 'live') {
    env[CASSETTE_OUT_ENV] = join(input.scratch, 'cassettes')
    // What it records goes to the scratch folder, so a drift job in CI may record.
    env[ALLOW_CI_RECORDING_ENV] = '1'
  }
  let output = ''
  const collect = (text: string) => {
    output += text
  }
  const end = await spawnCommand({
    argv,
    cwd: input.cwd,
    env,
    stdio: 'pipe',
    output: { stdout: collect, stderr: collect },
  })
  const notes = await readNotes(join(dir, 'tapes.jsonl'))
  const command = argv.map((arg) => (isAbsolute(arg) ? toPosix(relative(input.cwd, arg)) : arg)).join(' ')
  if (notes.length === 0 && end.exitCode !== 0) {
    input.output(output)
    throw new DriftCommandError(command, end.exitCode, phase)
  }
  return { notes, command }
}

/** The test command ran no tape and failed: drift has nothing to classify. */
export class DriftCommandError extends Error {
  constructor(
    readonly command: string,
    readonly exitCode: number | null,
    readonly phase: 'replay' | 'live',
  ) {
    super(`${command} exited with ${exitCode} in the ${phase} run before any tape ran`)
  }
}

async function readNotes(file: string): Promise<DriftTapeNote[]> {
  const text = await readFile(file, 'utf8').catch(() => '')
  const notes = new Map<string, DriftTapeNote>()
  for (const line of text.split('\n')) {
    if (line.trim() === '') continue
    try {
      const note = JSON.parse(line) as DriftTapeNote
      // A test that retried notes each attempt: the last one counts.
      notes.set(note.cassette, note)
    } catch {}
  }
  return [...notes.values()]
}

/** A tape whose replay missed: where the code's request parted from the recording. */
async function codeRow(input: DriftInput, note: DriftTapeNote): Promise<DriftRow> {
  const row = baseRow(input, note, 'code')
  if (note.run && existsSync(note.run) && existsSync(note.cassette)) {
    const committed = await loadCassette('agent-tape drift', note.cassette, input)
    const run = await loadCassette('agent-tape drift', note.run, input)
    const entry = diffCassettes(note.cassette, committed, note.run, run).entries.find(
      (e) => e.status !== 'unchanged' && e.input.length > 0,
    )
    const side = entry?.b ?? entry?.a
    if (entry && side) {
      row.first = {
        where: `${position(side)}, ${side.label}`,
        what: `request changed: ${inputChange(entry)}`,
      }
      return row
    }
  }
  if (note.failure?.code === 'ERR_TAPE_NO_CASSETTE')
    row.first = { where: 'replay', what: 'no committed cassette (a new test: a run in mode auto records it)' }
  else if (note.failure) row.first = { where: 'replay', what: firstLine(note.failure.message) }
  return row
}

/** A tape of the live run: compared with its committed cassette. */
async function liveRow(
  input: DriftInput,
  before: DriftTapeNote,
  note: DriftTapeNote | undefined,
): Promise<DriftRow> {
  if (!note) return errorRow(input, before, 'it did not run in the live run')
  // A recording, whatever its test made of it (a tape over its own configured budget included).
  if (note.out && existsSync(note.out)) {
    const committed = await loadCassette('agent-tape drift', note.cassette, input)
    const live = await loadCassette('agent-tape drift', note.out, input)
    const { class: found, first } = classifyDiff(diffCassettes(note.cassette, committed, note.out, live))
    return { ...baseRow(input, note, found), ...(first ? { first } : {}) }
  }
  // Refused by the drift run's budget: the recording was given up, so nothing was written.
  if (note.refused && note.failure?.code === 'ERR_TAPE_BUDGET') {
    return {
      ...baseRow(input, note, 'budget'),
      first: { where: 'live run', what: firstLine(note.failure.message) },
    }
  }
  // Recorded the same as the committed cassette (nothing is written then), whether or not its
  // test passed: nothing moved under it.
  if (note.status === 'recorded' && !note.written && !note.refused) return baseRow(input, note, 'unchanged')
  return errorRow(input, note, note.failure ? firstLine(note.failure.message) : 'nothing was recorded')
}

function errorRow(input: DriftInput, note: DriftTapeNote, why: string): DriftRow {
  const what = note.failure ? firstLine(note.failure.message) : why
  return {
    ...baseRow(input, note, 'error'),
    first: { where: note.status === 'error' ? 'open' : 'live run', what },
  }
}

function baseRow(input: DriftInput, note: DriftTapeNote, found: DriftClass): DriftRow {
  return { test: note.test, cassette: toPosix(relative(input.cwd, note.cassette)), class: found }
}

/** What failed and why, without what to do (the table has no room for it): `what: why`. */
function firstLine(message: string): string {
  const line = message.replace(/^\[agent-tape\] /, '').split('\n')[0]!
  const fix = /\. (?=[A-Z])/.exec(line)
  return fix ? line.slice(0, fix.index) : line
}

function testFileOf(test: string): string {
  return test.split(' > ')[0]!
}

function unique(values: string[]): string[] {
  return [...new Set(values)].sort()
}
