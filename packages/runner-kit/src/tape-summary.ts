import { createPrintMask, type TapeState } from '@agent-tape/core/internal'
import { sumUsage, type TokenUsage } from '@agent-tape/http/internal'
import type { DecisionUsage, RunTotals, WrittenView } from '@agent-tape/inspect'
import { costCells, costLines, modelLines, priceRun, type RunCost } from './cost/cost-summary.js'
import { PRUNE_FLAG } from './obsolete-cassettes.js'

/** What an entry keeps of a tape's state as it is: where, how, and the counts of its decisions. */
type KeptState =
  | 'cassettePath'
  | 'mode'
  | 'action'
  | 'inCassette'
  | 'replayed'
  | 'recorded'
  | 'missed'
  | 'unused'
  | 'written'

/** One tape of a run, as the summary shows it: plain data a worker can send to the reporter. */
export interface TapeSummaryEntry extends Pick<TapeState, KeptState> {
  /** The test, `<file> > <describe> > <test>`. */
  test: string
  /** The tape's end state, or `error` when it could not open (a damaged or missing cassette). */
  status: TapeState['status'] | 'error'
  /** The error code when `status` is `error`. */
  error?: string
  /**
   * Set when the tape read its cassette at its former path (`cassettePath`, named by the tape
   * name alone): the path its describe blocks give it, where the cassette belongs now.
   */
  movesTo?: string
  /** Set when a boundary refused to record a decision the run needed (no API key): nothing was written. */
  recordingRefused?: true
  /** Tokens of the replayed model decisions: what the run would have spent live. */
  tokens?: TokenUsage
  /**
   * The tokens of each model decision the tape replayed (what the run did not spend) or
   * recorded (what it spent), with their models: what the summary prices.
   */
  usage?: DecisionUsage[]
  /** When the decisions of `usage` were recorded: prices are those of that time. */
  recordedAt?: string
  /**
   * A re-record that changed the cassette: the cassette it replaced, and the new one; with
   * `kept`, the decisions a `resume` re-record replayed from the old one and kept (not spent again).
   */
  rerecorded?: { before: RunTotals; after: RunTotals; kept?: RunTotals }
  /** What the tape warned about without failing (a model host that is not configured, a stale harness). */
  warnings?: string[]
  /** Tools whose live result differed from the recording (`live-tools` mode). */
  drifted?: string[]
  /**
   * Child processes the test started while the tape recorded or replayed, as commands (a refused
   * one ends with `(refused)`): agent-tape does not see what they send.
   */
  childProcesses?: string[]
  /**
   * What reached the tape after its test had finished (a request from a promise the test did not
   * await): each was refused, and the test could no longer fail with it.
   */
  lateUses?: string[]
  /**
   * Where the run of a diverged replay was kept, relative to the project root, for the
   * divergence view (`agent-tape view <cassette> --run <run>`).
   */
  run?: string
}

export interface TapeRunSummary {
  entries: readonly TapeSummaryEntry[]
  /** Cassettes that no test uses any more: reported, never deleted without an explicit prune. */
  obsolete: readonly string[]
  /** Obsolete cassettes deleted by an explicit prune in this run. */
  pruned?: readonly string[]
  /** The command that prunes obsolete cassettes with this runner (default: Vitest's `-- --prune-cassettes`). */
  pruneCommand?: string
  /** The divergence views written for diverged tapes (`viewDir`), paths relative to their project root. */
  views?: readonly WrittenView[]
  /**
   * Set when the run was asked to update snapshots (`-u`): when a tape diverged, one line says
   * that `-u` does not update cassettes, and `updateAll`, the command that does.
   */
  snapshotUpdate?: { updateAll: string }
  /** Whether obsolete cassettes fail the run (`failOnObsolete`): the summary says so. */
  failOnObsolete?: boolean
}

export function summarizeTape(state: TapeState, test: string, tokens?: TokenUsage): TapeSummaryEntry {
  const entry: TapeSummaryEntry = {
    test,
    cassettePath: state.cassettePath,
    mode: state.mode,
    action: state.action,
    status: state.status,
    inCassette: state.inCassette,
    replayed: state.replayed,
    recorded: state.recorded,
    missed: state.missed,
    unused: state.unused,
    written: state.written,
  }
  if (state.writeSkipped === 'refused') entry.recordingRefused = true
  if (tokens && (tokens.input > 0 || tokens.output > 0)) entry.tokens = tokens
  if (state.warnings.length > 0) entry.warnings = [...state.warnings]
  if (state.drifted.length > 0) entry.drifted = [...state.drifted]
  return entry
}

export interface SummaryTotals {
  tapes: number
  clean: number
  recorded: number
  diverged: number
  errors: number
  passthrough: number
  decisions: { replayed: number; recorded: number; missed: number; unused: number }
  tokens: TokenUsage
}

export function totalSummary(entries: readonly TapeSummaryEntry[]): SummaryTotals {
  const count = (status: TapeSummaryEntry['status']) => entries.filter((e) => e.status === status).length
  const sum = (field: 'replayed' | 'recorded' | 'missed' | 'unused') =>
    // After a miss the run stops short: the decisions it never reached are not "unused".
    entries.reduce((n, e) => n + (field === 'unused' && e.missed > 0 ? 0 : e[field]), 0)
  return {
    tapes: entries.length,
    clean: count('clean'),
    recorded: count('recorded'),
    diverged: count('diverged'),
    errors: count('error'),
    passthrough: count('passthrough'),
    decisions: {
      replayed: sum('replayed'),
      recorded: sum('recorded'),
      missed: sum('missed'),
      unused: sum('unused'),
    },
    tokens: sumUsage(entries.map((e) => e.tokens)),
  }
}

const HEAD = ['tape', 'mode', 'result', 'replayed', 'recorded', 'missed', 'unused', 'tokens', 'cost'] as const

function row(e: TapeSummaryEntry, cost: RunCost, i: number): string[] {
  const replaying = e.action === 'replay'
  return [
    e.test,
    e.mode,
    e.status === 'error' ? `error ${e.error ?? ''}`.trim() : e.status,
    // A `resume` re-record replays part of its cassette too.
    replaying || e.replayed > 0 ? `${e.replayed}/${e.inCassette}` : '-',
    e.action === 'record' ? `${e.recorded}${recordedNote(e)}` : '-',
    replaying ? String(e.missed) : '-',
    replaying && e.missed === 0 ? String(e.unused) : '-',
    ...costCells(cost.perEntry[i]),
  ]
}

function recordedNote(e: TapeSummaryEntry): string {
  if (e.written) return ''
  return e.recordingRefused ? ' (not written)' : ' (unchanged)'
}

function headline(t: SummaryTotals): string {
  const parts = [`${t.clean} replayed cleanly`, `${t.recorded} recorded`, `${t.diverged} diverged`]
  if (t.errors > 0) parts.push(`${t.errors} failed to open`)
  if (t.passthrough > 0) parts.push(`${t.passthrough} live`)
  return `${t.tapes} tape${t.tapes === 1 ? '' : 's'}: ${parts.join(', ')}`
}

function decisionsLine(t: SummaryTotals): string {
  const d = t.decisions
  return `decisions: ${d.replayed} replayed, ${d.recorded} recorded, ${d.missed} missed, ${d.unused} unused`
}

/** The plain-text summary a reporter prints at the end of a run. */
export function renderSummaryText(summary: TapeRunSummary): string {
  const t = totalSummary(summary.entries)
  const cost = priceRun(summary.entries)
  const lines = [`agent-tape  ${headline(t)}`, '']
  if (summary.entries.length > 0) {
    const rows = [[...HEAD], ...summary.entries.map((e, i) => row(e, cost, i))]
    const widths = HEAD.map((_, i) => Math.max(...rows.map((r) => r[i]!.length)))
    for (const r of rows) {
      const cells = r.map((cell, i) => (i >= 3 ? cell.padStart(widths[i]!) : cell.padEnd(widths[i]!)))
      lines.push(`  ${cells.join('  ').trimEnd()}`)
    }
    lines.push('')
  }
  lines.push(`  ${decisionsLine(t)}`, ...costLines(cost).map((line) => `  ${line}`))
  lines.push(...section(modelLines(cost), 'Tokens by model', (line) => `    ${line}`))
  lines.push(...section(deltaLines(cost), rerecordedTitle(cost), (line) => `    ${line}`))
  lines.push(...driftLines(summary, (test, tool) => `    ${test}: ${tool}`))
  lines.push(...warningLines(summary, (test, message) => `    ${test}: ${message}`))
  lines.push(...childLines(summary, (test, command) => `    ${test}: ${command}`))
  lines.push(...lateLines(summary, (test, what) => `    ${test}: ${what}`))
  lines.push(...viewLines(summary, (test, where) => `    ${test}: ${where}`))
  lines.push(...movedLines(summary, (from, to) => `    git mv '${from}' '${to}'`))
  lines.push(...obsoleteLines(summary, (path) => `    ${path}`))
  lines.push(...snapshotUpdateLines(summary, t))
  // Test names and warnings come from the user's code: masked like every other report.
  return createPrintMask()(lines.join('\n'))
}

/**
 * The same summary as Markdown, for `GITHUB_STEP_SUMMARY`. The divergence views link to the
 * artifacts of the workflow run (GitHub Actions' `GITHUB_SERVER_URL`, `GITHUB_REPOSITORY` and
 * `GITHUB_RUN_ID` in `env`), where a job that uploads the view folder puts them.
 */
export function renderSummaryMarkdown(
  summary: TapeRunSummary,
  env: Record<string, string | undefined> = {},
): string {
  const t = totalSummary(summary.entries)
  const cost = priceRun(summary.entries)
  const lines = ['### agent-tape', '', `**${headline(t)}**`, '']
  if (summary.entries.length > 0) {
    lines.push(`| ${HEAD.join(' | ')} |`, `| ${HEAD.map((_, i) => (i >= 3 ? '--:' : '---')).join(' | ')} |`)
    for (const r of summary.entries.map((e, i) => row(e, cost, i))) {
      lines.push(
        `| ${r.map((cell, i) => (i === 0 ? `\`${cell}\`` : cell).replace(/\|/g, '\\|')).join(' | ')} |`,
      )
    }
    lines.push('')
  }
  lines.push(`${decisionsLine(t)}  `, ...costLines(cost).map((line) => `${line}  `))
  lines.push(...section(modelLines(cost), 'Tokens by model', (line) => `- ${line}`))
  lines.push(...section(deltaLines(cost), rerecordedTitle(cost), (line) => `- ${line}`))
  lines.push(...driftLines(summary, (test, tool) => `- \`${test}\`: ${tool}`))
  lines.push(...warningLines(summary, (test, message) => `- \`${test}\`: ${message}`))
  lines.push(...childLines(summary, (test, command) => `- \`${test}\`: \`${command.replace(/`/g, "'")}\``))
  lines.push(...lateLines(summary, (test, what) => `- \`${test}\`: ${what}`))
  lines.push(...viewLines(summary, (test, where) => `- \`${test}\`: ${where}`, artifactsUrl(env)))
  lines.push(...movedLines(summary, (from, to) => `- \`git mv '${from}' '${to}'\``))
  lines.push(...obsoleteLines(summary, (path) => `- \`${path}\``))
  return `${createPrintMask()(lines.join('\n'))}\n`
}

/** A titled list after a blank line; nothing when the list is empty. */
function section(items: readonly string[], title: string, item: (line: string) => string): string[] {
  return items.length === 0 ? [] : ['', `  ${title}:`, ...items.map(item)]
}

function deltaLines(cost: RunCost): string[] {
  return cost.deltas.map((d) => d.line)
}

function rerecordedTitle(cost: RunCost): string {
  return `Re-recorded (${cost.deltas.length}), against the cassette each replaced`
}

function driftLines(summary: TapeRunSummary, item: (test: string, tool: string) => string): string[] {
  const drifted = summary.entries.flatMap((e) => (e.drifted ?? []).map((tool) => item(e.test, tool)))
  if (drifted.length === 0) return []
  return [
    '',
    `  Drifted tools (${drifted.length}): run live, they returned something other than their recording:`,
    ...drifted,
  ]
}

function warningLines(summary: TapeRunSummary, item: (test: string, message: string) => string): string[] {
  const warned = summary.entries.flatMap((e) => (e.warnings ?? []).map((w) => item(e.test, w)))
  if (warned.length === 0) return []
  return ['', `  Warnings (${warned.length}):`, ...warned]
}

function childLines(summary: TapeRunSummary, item: (test: string, command: string) => string): string[] {
  const started = summary.entries.flatMap((e) => (e.childProcesses ?? []).map((c) => item(e.test, c)))
  if (started.length === 0) return []
  return [
    '',
    `  Child processes (${started.length}): started while a tape recorded or replayed; a Node process is taped in the lane named, what any other program sends is not seen (childProcesses: 'refuse' refuses them):`,
    ...started,
  ]
}

function lateLines(summary: TapeRunSummary, item: (test: string, what: string) => string): string[] {
  const late = summary.entries.flatMap((e) => (e.lateUses ?? []).map((what) => item(e.test, what)))
  if (late.length === 0) return []
  return [
    '',
    `  Used after their test ended (${late.length}): a promise the test did not await reached the tape after it finished, and was refused; await every agent call in the test:`,
    ...late,
  ]
}

function viewLines(
  summary: TapeRunSummary,
  item: (test: string, where: string) => string,
  artifacts?: string,
): string[] {
  const views = summary.views ?? []
  if (views.length === 0) return []
  const written = views.filter((v) => 'path' in v).length
  const where = artifacts
    ? `, in [this run's artifacts](${artifacts}) when the job uploads the view folder`
    : ''
  return [
    '',
    `  Divergence views (${written}): each diverged run next to its recording, one page to open in a browser${where}:`,
    ...views.map((v) => item(v.test, 'path' in v ? v.path : `not written (${v.error})`)),
  ]
}

/** The page of a GitHub Actions workflow run that lists its artifacts. */
function artifactsUrl(env: Record<string, string | undefined>): string | undefined {
  const { GITHUB_SERVER_URL: server, GITHUB_REPOSITORY: repo, GITHUB_RUN_ID: run } = env
  return server && repo && run ? `${server}/${repo}/actions/runs/${run}#artifacts` : undefined
}

function movedLines(summary: TapeRunSummary, item: (from: string, to: string) => string): string[] {
  const moved = summary.entries.flatMap((e) => (e.movesTo ? [item(e.cassettePath, e.movesTo)] : []))
  if (moved.length === 0) return []
  return [
    '',
    `  Cassettes at their former paths (${moved.length}): read from there; cassettes are now named by their describe blocks too, so move them (or re-record):`,
    ...moved,
  ]
}

function obsoleteLines(summary: TapeRunSummary, item: (path: string) => string): string[] {
  const lines: string[] = []
  if (summary.obsolete.length > 0) {
    const prune = summary.pruneCommand ?? `-- ${PRUNE_FLAG}`
    const fails = summary.failOnObsolete ? ', and fail this run (failOnObsolete)' : ''
    lines.push(
      '',
      `  Obsolete cassettes (${summary.obsolete.length}): no test uses them any more${fails}. Delete them, or prune them with ${prune}:`,
      ...summary.obsolete.map(item),
    )
  }
  if (summary.pruned && summary.pruned.length > 0) {
    lines.push(
      '',
      `  Pruned ${summary.pruned.length} obsolete cassette${summary.pruned.length === 1 ? '' : 's'}:`,
    )
    lines.push(...summary.pruned.map(item))
  }
  return lines
}

/**
 * The snapshot habit: `-u` updates snapshots only, so a tape that diverged in that run stays
 * diverged; one line says so, last, where the eye lands (decision 0005).
 */
function snapshotUpdateLines(summary: TapeRunSummary, t: SummaryTotals): string[] {
  if (!summary.snapshotUpdate || t.diverged === 0) return []
  return [
    '',
    `  -u updates snapshots, not cassettes: re-record a diverged test with the command its failure prints, or every tape that runs with ${summary.snapshotUpdate.updateAll}.`,
  ]
}
