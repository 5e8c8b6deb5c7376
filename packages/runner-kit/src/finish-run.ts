import { appendFileSync } from 'node:fs'
import { readdir, rm, stat } from 'node:fs/promises'
import { join } from 'node:path'
import { formatMessage } from '@agent-tape/core/runtime'
import { type WrittenView, writeDivergenceViews } from '@agent-tape/inspect'
import { createCassetteListing } from './cassette-listing.js'
import { type CollectedTestFile, findObsoleteCassettes, PRUNE_FLAG } from './obsolete-cassettes.js'
import { REPORT_OPTIONS, type ReportConfig, RUNNER_OPTIONS } from './option-table.js'
import {
  renderSummaryMarkdown,
  renderSummaryText,
  type TapeRunSummary,
  type TapeSummaryEntry,
} from './tape-summary.js'

/**
 * The tapes of one project (one root and cassette folder), or of part of one (a Jest test file),
 * as a runner's reporter collected them.
 */
export interface ProjectRun {
  root: string
  /** The run summary's slice of the config these tapes ran with; what it leaves out is the default. */
  config: Partial<ReportConfig>
  /** One entry per tape that ran, in the order to print them. */
  entries: readonly TapeSummaryEntry[]
  /**
   * The test files collected without error, with every tape name each defines: the cassettes of
   * a file that failed to load would all look obsolete, so such a file is left out.
   */
  collected: readonly CollectedTestFile[]
}

export interface FinishRunOptions {
  /** Delete obsolete cassettes instead of listing them. */
  prune: boolean
  /** The command that deletes them, when it is not the runner's own command with the prune switch. */
  pruneCommand?: string
  /**
   * Fail the run when it finds obsolete cassettes, as `--fail-on-obsolete` asks (a project's
   * `failOnObsolete` asks it too): the summary says so, and the returned summary's
   * `failOnObsolete` is set for the reporter to fail the run with.
   */
  failOnObsolete?: boolean
  /** Prints the summary text. */
  print(text: string): void
  /** Set when the run updates snapshots (`-u`): see {@link TapeRunSummary.snapshotUpdate}. */
  snapshotUpdate?: { updateAll: string }
  /** Environment, for `GITHUB_STEP_SUMMARY` (default `process.env`). */
  env?: Record<string, string | undefined>
}

/**
 * The reporter's finish-up, the same for every runner: finds the cassettes no test uses any more
 * (and deletes them when pruning), writes the divergence views of diverged tapes when a project
 * has a `viewDir`, then prints the run summary, and appends it as Markdown to
 * `GITHUB_STEP_SUMMARY` when that is set. Prints nothing for a run without tapes or leftovers.
 */
export async function finishRun(
  runs: readonly ProjectRun[],
  options: FinishRunOptions,
): Promise<TapeRunSummary | undefined> {
  const env = options.env ?? process.env
  const projects = mergeProjects(runs)
  const failOnObsolete = options.failOnObsolete === true || projects.some((p) => p.config.failOnObsolete)
  const entries: TapeSummaryEntry[] = []
  const obsolete: string[] = []
  const pruned: string[] = []
  const views: WrittenView[] = []
  for (const project of projects) {
    entries.push(...project.entries)
    if (project.config.viewDir !== undefined) {
      views.push(...(await writeDivergenceViews(project.root, project.config.viewDir, project.entries, env)))
    }
    const found = await findObsoleteCassettes(
      project.collected,
      createCassetteListing(project.root, { readdir, stat }),
      project.config.cassetteDir,
    )
    if (!options.prune) {
      obsolete.push(...found)
      continue
    }
    for (const path of found) await rm(join(project.root, path), { force: true })
    pruned.push(...found)
  }
  if (entries.length === 0 && obsolete.length === 0 && pruned.length === 0) return undefined
  const summary: TapeRunSummary = {
    entries,
    obsolete,
    ...(pruned.length > 0 ? { pruned } : {}),
    ...(options.pruneCommand ? { pruneCommand: options.pruneCommand } : {}),
    ...(views.length > 0 ? { views } : {}),
    ...(options.snapshotUpdate ? { snapshotUpdate: options.snapshotUpdate } : {}),
    ...(failOnObsolete && obsolete.length > 0 ? { failOnObsolete: true } : {}),
  }
  options.print(renderSummaryText(summary))
  const stepSummary = env.GITHUB_STEP_SUMMARY
  if (stepSummary) appendFileSync(stepSummary, renderSummaryMarkdown(summary, env))
  return summary
}

interface MergedProject {
  root: string
  config: ReportConfig
  entries: TapeSummaryEntry[]
  collected: CollectedTestFile[]
}

/**
 * The runs of one root, cassette folder and view folder as one project, in the order they came:
 * a cassette is obsolete only when no test file of its project uses it. `failOnObsolete` holds
 * for the whole run when any part asks for it.
 */
function mergeProjects(runs: readonly ProjectRun[]): MergedProject[] {
  const projects = new Map<string, MergedProject>()
  for (const run of runs) {
    const config = withDefaults(run.config)
    const key = `${run.root}\0${config.cassetteDir}\0${config.viewDir ?? ''}`
    const project = projects.get(key)
    if (!project) {
      projects.set(key, { root: run.root, config, entries: [...run.entries], collected: [...run.collected] })
      continue
    }
    project.entries.push(...run.entries)
    project.collected.push(...run.collected)
    project.config.failOnObsolete ||= config.failOnObsolete
  }
  return [...projects.values()]
}

/** A reporter's slice with the table's default for each option it leaves out. */
function withDefaults(config: Partial<ReportConfig>): ReportConfig {
  const full: Partial<Record<keyof ReportConfig, unknown>> = {}
  for (const name of REPORT_OPTIONS) {
    const value = config[name] ?? RUNNER_OPTIONS[name].default
    if (value !== undefined) full[name] = value
  }
  return full as ReportConfig
}

/**
 * Why a finished run fails although its tests passed: obsolete cassettes under `failOnObsolete`.
 * The projects' listing of each shard covers only the test files it ran, so a shard never
 * fails on another shard's cassettes.
 */
export function obsoleteFailure(summary: TapeRunSummary | undefined): string | undefined {
  if (!summary?.failOnObsolete || summary.obsolete.length === 0) return undefined
  const n = summary.obsolete.length
  return formatMessage({
    what: `The run found ${n} obsolete cassette${n === 1 ? '' : 's'}`,
    why: `no test uses ${summary.obsolete.join(', ')} any more, and failOnObsolete is set`,
    fix: `Delete ${n === 1 ? 'it' : 'them'}, or prune with ${summary.pruneCommand ?? `-- ${PRUNE_FLAG}`}`,
  })
}
