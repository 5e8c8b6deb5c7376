import type { FakeProvider } from '@agent-tape/fake-provider'
import { afterAll, beforeAll, vi } from 'vitest'
import { type RunResult, startCityProvider } from '../support/fixture-project.js'
import type { Runner, RunnerProject } from './runners.js'

export interface RecordedFixture {
  /** The fake model, started for the enclosing suite. */
  readonly provider: FakeProvider
  /** The recording run: every tape of the `agent` fixture, on two workers. */
  readonly recordRun: RunResult
  /** The project the recording run wrote its cassettes in. */
  readonly recorded: RunnerProject
  /** The variables every run of the fixture needs. */
  env(): Record<string, string>
  /** A copy of the recorded project, removed after the suite. */
  copy(): RunnerProject
}

/**
 * Records the runner's `agent` fixture once before the enclosing suite, to be copied by each of
 * its tests: the recording run is the first scenario, and each later one starts from its cassettes.
 */
export function useRecordedFixture(runner: Runner): RecordedFixture {
  // Each test of such a file runs the real runner at least once, in child processes: on a loaded
  // 2-core machine that takes far longer than the suite's default timeout.
  vi.setConfig({ testTimeout: 120_000 })
  let provider: FakeProvider | undefined
  let recorded: RunnerProject | undefined
  let recordRun: RunResult | undefined
  const projects: RunnerProject[] = []
  const ready = <T>(value: T | undefined): T => {
    if (value === undefined) throw new Error(`the ${runner.name} fixture is not recorded yet`)
    return value
  }

  // As long as a scenario of the runners' tests is given: the recording may run beside the other
  // runner's, on a 2-core machine that may be loaded.
  beforeAll(async () => {
    provider = await startCityProvider(`${runner.name}-fixtures`)
    recorded = runner.project()
    projects.push(recorded)
    // Two workers: the config and the mode must reach the runner's child processes.
    recordRun = await recorded.runTests('--maxWorkers=2', { FAKE_PROVIDER_URL: provider.url })
  }, 120_000)

  afterAll(async () => {
    await provider?.close()
    for (const project of projects) project.dispose()
  })

  return {
    get provider() {
      return ready(provider)
    },
    get recordRun() {
      return ready(recordRun)
    },
    get recorded() {
      return ready(recorded)
    },
    env: () => ({ FAKE_PROVIDER_URL: ready(provider).url }),
    copy() {
      const project = runner.project(ready(recorded))
      projects.push(project)
      return project
    },
  }
}
