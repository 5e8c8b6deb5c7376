import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { isTruthyEnv } from '@agent-tape/core/internal'
import {
  buildUpdateAllCommand,
  detectExec,
  FAIL_ON_OBSOLETE_FLAG,
  finishRun,
  jestCommand,
  obsoleteFailure,
  PRUNE_FLAG,
  type ProjectRun,
  type TapeSummaryEntry,
} from '@agent-tape/runner-kit'
import type { AggregatedResult } from '@jest/test-result'
import type { Config } from '@jest/types'
import { FAIL_ON_OBSOLETE_ENV, type FileReport, PRUNE_ENV, REPORT_DIR_ENV } from './bridge.js'

/** The Jest reporter's options. */
export interface JestReporterOptions {
  /** Delete obsolete cassettes instead of only listing them (also `-- --prune-cassettes`). */
  prune?: boolean
  /** Fail the run when it finds obsolete cassettes (also `failOnObsolete`, `--fail-on-obsolete`). */
  failOnObsolete?: boolean
}

/** @deprecated The former name of {@link JestReporterOptions}. */
export type TapeSummaryOptions = JestReporterOptions

/**
 * Prints what every tape of the run did (replayed, recorded, missed, unused decisions), the
 * tokens replayed instead of spent, and cassettes that no test uses any more; also writes it
 * as Markdown to `GITHUB_STEP_SUMMARY` when that is set. The preset adds it after Jest's
 * default reporter.
 *
 * @example
 * reporters: ['default', '@agent-tape/jest/reporter']
 */
export default class TapeSummaryReporter {
  private readonly prune: boolean
  /** `-u`: Jest updates every snapshot it meets; cassettes have their own switch. */
  private readonly updatesSnapshots: boolean
  private readonly failOnObsolete: boolean
  private dir: string | undefined
  /** The run's failure when it found obsolete cassettes under `failOnObsolete`, for Jest to fail it with. */
  private failure: Error | undefined

  constructor(globalConfig: Config.GlobalConfig, options: JestReporterOptions = {}) {
    this.updatesSnapshots = globalConfig.updateSnapshot === 'all'
    const patterns = (globalConfig.testPathPatterns as { patterns?: unknown } | undefined)?.patterns
    this.prune =
      options.prune === true ||
      isTruthyEnv(process.env[PRUNE_ENV]) ||
      (Array.isArray(patterns) && patterns.includes(PRUNE_FLAG))
    this.failOnObsolete =
      options.failOnObsolete === true ||
      isTruthyEnv(process.env[FAIL_ON_OBSOLETE_ENV]) ||
      (Array.isArray(patterns) && patterns.includes(FAIL_ON_OBSOLETE_FLAG))
  }

  /** Jest fails a run whose reporter has an error here, though its tests passed. */
  getLastError(): Error | undefined {
    return this.failure
  }

  // Runs before Jest starts its workers, which inherit the folder through the environment.
  onRunStart(): void {
    this.dir = mkdtempSync(join(tmpdir(), 'agent-tape-jest-'))
    process.env[REPORT_DIR_ENV] = this.dir
  }

  async onRunComplete(_contexts: unknown, results: AggregatedResult): Promise<void> {
    const dir = this.dir
    if (!dir) return
    this.dir = undefined
    delete process.env[REPORT_DIR_ENV]
    const reports = readReports(dir)
    rmSync(dir, { recursive: true, force: true })
    const failedToRun = new Set(results.testResults.filter((r) => r.testExecError).map((r) => r.testFilePath))
    // One run per test file: `finishRun` joins the files of one project.
    const projects: ProjectRun[] = reports.map((report) => ({
      root: report.root,
      config: report.config,
      entries: ordered(report),
      // A file that failed to load defines no names: all its cassettes would look obsolete.
      collected: failedToRun.has(report.testPath) ? [] : [{ testFile: report.testFile, tapes: report.tapes }],
    }))
    const exec = detectExec(process.env.npm_config_user_agent)
    const summary = await finishRun(projects, {
      prune: this.prune,
      failOnObsolete: this.failOnObsolete,
      // Plain `jest` reads what follows `--` as test path patterns: the Jest CLI of agent-tape prunes.
      pruneCommand: jestCommand(PRUNE_FLAG, exec),
      print: (text) => process.stderr.write(`\n${text}\n\n`),
      ...(this.updatesSnapshots
        ? { snapshotUpdate: { updateAll: buildUpdateAllCommand('jest', exec) } }
        : {}),
    })
    const failure = obsoleteFailure(summary)
    if (failure) {
      process.stderr.write(`${failure}\n\n`)
      this.failure = new Error(failure)
    }
  }
}

function readReports(dir: string): FileReport[] {
  const reports: FileReport[] = []
  for (const name of readdirSync(dir)) {
    if (!name.endsWith('.json')) continue
    try {
      reports.push(JSON.parse(readFileSync(join(dir, name), 'utf8')) as FileReport)
    } catch {
      // A worker killed while writing: that file's tapes are missing from the summary.
    }
  }
  return reports.sort((a, b) => (a.testFile < b.testFile ? -1 : a.testFile > b.testFile ? 1 : 0))
}

/** A file's entries in the order its tapes are defined (concurrent tests finish in any order). */
function ordered(report: FileReport): TapeSummaryEntry[] {
  const position = (entry: TapeSummaryEntry) => {
    const at = report.tapes.findIndex((names) => entry.test === `${report.testFile} > ${names.join(' > ')}`)
    return at === -1 ? Number.MAX_SAFE_INTEGER : at
  }
  return [...report.entries].sort((a, b) => position(a) - position(b))
}
