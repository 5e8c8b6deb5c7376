import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { FixtureProject, REPO_ROOT, type RunResult } from '../../support/fixture-project.js'

export { CITY_AGENT, REPO_ROOT, type RunResult, startCityProvider } from '../../support/fixture-project.js'

const FIXTURES = join(dirname(fileURLToPath(import.meta.url)), '../fixtures')
const VITEST_BIN = join(REPO_ROOT, 'node_modules/vitest/vitest.mjs')

/** A temporary copy of a Vitest fixture project, run with the repository's Vitest. */
export class VitestProject extends FixtureProject {
  /**
   * @param source a fixture name under test/vitest/fixtures, or another project to copy
   * @param layers folders copied over it, such as the shared {@link CITY_AGENT}
   */
  constructor(source: string | FixtureProject, ...layers: string[]) {
    const from = typeof source === 'string' ? join(FIXTURES, source) : source.dir
    super(typeof source === 'string' ? source : 'copy', [from, ...layers])
  }

  /** `vitest <args>` with the repository's Vitest. */
  vitest(args: string, env: Record<string, string> = {}): Promise<RunResult> {
    return this.run(`"${process.execPath}" "${VITEST_BIN}" ${args}`, env)
  }

  /** Runs the project's tests once, as `jest <args>` does for a Jest project: `vitest run <args>`. */
  runTests(args: string, env: Record<string, string> = {}): Promise<RunResult> {
    return this.vitest(`run ${args}`, env)
  }
}
