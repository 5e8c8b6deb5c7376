import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { FixtureProject, REPO_ROOT, type RunResult } from '../../support/fixture-project.js'

export { CITY_AGENT, REPO_ROOT, type RunResult, startCityProvider } from '../../support/fixture-project.js'

const FIXTURES = join(dirname(fileURLToPath(import.meta.url)), '../fixtures')
const JEST_BIN = join(REPO_ROOT, 'node_modules/jest/bin/jest.js')

/** A temporary copy of a Jest fixture project, run with the repository's Jest. */
export class JestProject extends FixtureProject {
  /**
   * @param source a fixture name under test/jest/fixtures, or another project to copy
   * @param layers folders copied over it, such as the shared {@link CITY_AGENT}
   */
  constructor(source: string | FixtureProject, ...layers: string[]) {
    const from = typeof source === 'string' ? join(FIXTURES, source) : source.dir
    super(`jest-${typeof source === 'string' ? source : 'copy'}`, [from, ...layers])
  }

  /** `jest <args>` with the repository's Jest. */
  jest(args: string, env: Record<string, string> = {}): Promise<RunResult> {
    return this.run(`"${process.execPath}" "${JEST_BIN}" ${args}`, env)
  }

  /** Runs the project's tests once, as `vitest run <args>` does for a Vitest project: `jest <args>`. */
  runTests(args: string, env: Record<string, string> = {}): Promise<RunResult> {
    return this.jest(args, env)
  }
}
