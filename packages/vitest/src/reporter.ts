import { appendFileSync } from 'node:fs'
import { readdir, rm, stat } from 'node:fs/promises'
import { join, relative } from 'node:path'
import {
  type CollectedTestFile,
  createCassetteListing,
  DEFAULT_CASSETTE_DIR,
  findObsoleteCassettes,
  renderSummaryMarkdown,
  renderSummaryText,
  type TapeRunSummary,
  type TapeSummaryEntry,
  toPosix,
} from '@agent-tape/core'
import type { Reporter, TestModule, Vitest } from 'vitest/node'
import './meta.js'

export interface TapeSummaryOptions {
  /** The plugin's `cassetteDir` (default `__cassettes__`). */
  cassetteDir?: string
  /** Delete obsolete cassettes instead of only listing them. */
  prune?: boolean
}

/**
 * Prints what every tape of the run did (replayed, recorded, missed, unused decisions), the
 * tokens replayed instead of spent, and cassettes that no test uses any more. Also writes a
 * Markdown version to `GITHUB_STEP_SUMMARY` when it is set. The plugin adds it by default.
 */
export class TapeSummaryReporter implements Reporter {
  private vitest: Vitest | undefined
  private readonly options: TapeSummaryOptions

  constructor(options: TapeSummaryOptions = {}) {
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
      const tapeNames: string[] = []
      for (const test of module.children.allTests()) {
        const meta = test.meta().agentTape
        if (!meta) continue
        tapeNames.push(meta.name)
        if (meta.entry) entries.push(meta.entry)
      }
      // A file that failed to load defines no names: all its cassettes would look obsolete.
      if (module.errors().length === 0) {
        collected.push({ testFile: toPosix(relative(root, module.moduleId)), tapeNames })
      }
    }
    const cassetteDir = this.options.cassetteDir ?? DEFAULT_CASSETTE_DIR
    const obsolete = await findObsoleteCassettes(
      collected,
      createCassetteListing(root, { readdir, stat }),
      cassetteDir,
    )
    const summary: TapeRunSummary = { entries, obsolete }
    if (this.options.prune && obsolete.length > 0) {
      for (const path of obsolete) await rm(join(root, path), { force: true })
      Object.assign(summary, { obsolete: [], pruned: obsolete })
    }
    if (entries.length === 0 && obsolete.length === 0) return
    vitest.logger.log(`\n${renderSummaryText(summary)}\n`)
    const stepSummary = process.env.GITHUB_STEP_SUMMARY
    if (stepSummary) appendFileSync(stepSummary, renderSummaryMarkdown(summary))
  }
}

export default TapeSummaryReporter
