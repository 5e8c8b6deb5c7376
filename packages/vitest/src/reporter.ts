import { relative } from 'node:path'
import {
  buildUpdateAllCommand,
  type CollectedTestFile,
  detectExec,
  FAIL_ON_OBSOLETE_FLAG,
  finishRun,
  obsoleteFailure,
  PRUNE_FLAG,
  type ReportConfig,
  type TapeSummaryEntry,
  toPosix,
} from '@agent-tape/runner-kit'
import type { Reporter, TestModule, Vitest } from 'vitest/node'
import './meta.js'

/**
 * The reporter's options: the run summary's slice of the plugin's options (`ReportConfig`; the
 * plugin passes its own, untouched), and `prune`.
 */
export interface VitestReporterOptions extends Partial<ReportConfig> {
  /** Delete obsolete cassettes instead of only listing them (also `-- --prune-cassettes`). */
  prune?: boolean
}

/** @deprecated The former name of {@link VitestReporterOptions}. */
export type TapeSummaryOptions = VitestReporterOptions

/**
 * Prints what every tape of the run did (replayed, recorded, missed, unused decisions), the
 * tokens replayed instead of spent and their price, and cassettes that no test uses any more. Also writes a
 * Markdown version to `GITHUB_STEP_SUMMARY` when it is set. The plugin adds it by default.
 */
export class TapeSummaryReporter implements Reporter {
  private vitest: Vitest | undefined
  private readonly options: VitestReporterOptions

  constructor(options: VitestReporterOptions = {}) {
    this.options = options
  }

  onInit(vitest: Vitest): void {
    this.vitest = vitest
  }

  async onTestRunEnd(testModules: ReadonlyArray<TestModule>): Promise<void> {
    const vitest = this.vitest
    if (!vitest) return
    const root = vitest.config.root
    const entries: TapeSummaryEntry[] = []
    const collected: CollectedTestFile[] = []
    for (const module of testModules) {
      const tapes: string[][] = []
      const late = module.meta().agentTapeLate ?? {}
      // Setup tapes (`beforeAll.tape`, `afterAll.tape`), claimed as the file was collected: the
      // entries of `beforeAll` listed before the tests', those of `afterAll` after them.
      const setups = module.meta().agentTapeSetup
      if (setups) {
        tapes.push(...setups.tapes)
        entries.push(...setups.entries.filter((e) => !e.test.endsWith(' > afterAll')))
      }
      for (const test of module.children.allTests()) {
        const meta = test.meta().agentTape
        if (!meta) continue
        tapes.push([...(meta.describes ?? []), meta.name])
        if (!meta.entry) continue
        const lateUses = late[meta.entry.test]
        entries.push(lateUses ? { ...meta.entry, lateUses } : meta.entry)
      }
      if (setups) entries.push(...setups.entries.filter((e) => e.test.endsWith(' > afterAll')))
      if (module.errors().length === 0) {
        collected.push({ testFile: toPosix(relative(root, module.moduleId)), tapes })
      }
    }
    const { prune, ...config } = this.options
    // `-u`: Vitest updates every snapshot it meets; cassettes have their own switch.
    const snapshots = vitest.config.snapshotOptions?.updateSnapshot === 'all'
    const exec = detectExec(process.env.npm_config_user_agent)
    // Vitest rejects unknown flags before `--`; what follows `--` reaches process.argv untouched.
    const summary = await finishRun([{ root, config, entries, collected }], {
      prune: prune === true || process.argv.includes(PRUNE_FLAG),
      failOnObsolete: process.argv.includes(FAIL_ON_OBSOLETE_FLAG),
      print: (text) => vitest.logger.log(`\n${text}\n`),
      ...(snapshots ? { snapshotUpdate: { updateAll: buildUpdateAllCommand('vitest', exec) } } : {}),
    })
    const failure = obsoleteFailure(summary)
    if (failure) {
      vitest.logger.error(`${failure}\n`)
      // Vitest sets no exit code for a run whose tests all passed: this one fails.
      process.exitCode = 1
    }
  }
}

export default TapeSummaryReporter
