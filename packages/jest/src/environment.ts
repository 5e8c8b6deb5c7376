import { createHash } from 'node:crypto'
import { writeFileSync } from 'node:fs'
import { join, relative } from 'node:path'
import { CI_FROM_ENV, isTruthyEnv } from '@agent-tape/core/runtime'
import { provideReplayKeys } from '@agent-tape/http'
import {
  applyModeSwitch,
  detectExec,
  placeholderKeysFor,
  reportConfigOf,
  runModeOf,
  toPosix,
} from '@agent-tape/runner-kit'
import type { EnvironmentContext, JestEnvironmentConfig } from '@jest/environment'
import type { Circus } from '@jest/types'
import { TestEnvironment } from 'jest-environment-node'
import { BRIDGE_KEY, type FileReport, REPORT_DIR_ENV, type TapeBridge } from './bridge.js'
import { resolveOptions } from './options.js'

/**
 * The agent-tape test environment: Jest's Node environment, plus what `it.tape` needs inside
 * the sandbox (config, mode inputs, the name path of each test as it is defined), and a
 * report of the file's tapes for the summary reporter.
 *
 * @example
 * // jest.config.js: the preset sets this, the setup file and the reporter
 * module.exports = { preset: '@agent-tape/jest' }
 */
export default class AgentTapeEnvironment extends TestEnvironment {
  private readonly bridge: TapeBridge
  private readonly testPath: string

  constructor(config: JestEnvironmentConfig, context: EnvironmentContext) {
    super(config, context)
    const { globalConfig, projectConfig } = config
    const tapeConfig = resolveOptions(projectConfig.testEnvironmentOptions.agentTape)
    const env: Record<string, string | undefined> = { ...process.env }
    // Jest's own CI verdict (`--ci`, or CI detected): it writes no snapshots then, and we record nothing.
    env.CI = globalConfig.ci ? 'true' : ''
    if (globalConfig.ci && !isTruthyEnv(process.env.CI)) env[CI_FROM_ENV] = "Jest's --ci"
    applyModeSwitch(switchesGiven(globalConfig), env)
    // Refuses `update` in CI here, once per file, before any test runs.
    const mode = runModeOf(tapeConfig, env)
    // A tape that replays needs no API key: SDK clients built at import time get placeholders, and
    // a tape of the run that has to record without its key is told which one.
    const keys = placeholderKeysFor(mode)
    if (keys) provideReplayKeys(this.global.process.env, keys)
    this.testPath = context.testPath
    this.bridge = {
      config: tapeConfig,
      runMode: mode,
      root: projectConfig.rootDir,
      testFile: toPosix(relative(projectConfig.rootDir, context.testPath)),
      env,
      exec: detectExec(process.env.npm_config_user_agent),
      testTimeout: globalConfig.testTimeout ?? 5000,
      lastDefined: undefined,
      tapes: [],
      entries: [],
    }
    this.global[BRIDGE_KEY] = this.bridge
  }

  // Sync events (`add_test` among them) are dispatched while the test file defines its
  // tests, so `it.tape` reads the full name path of the test it just defined.
  handleTestEvent(event: Circus.Event, state: Circus.State): void {
    // After the root block's `afterAll` hooks: the last request of the file has been made.
    if (event.name === 'run_finish') this.disposeBoundary()
    // A hook is added to the block being defined: `beforeAll.tape` reads the block's names.
    if (event.name === 'add_hook') this.bridge.lastHookScope = blockNamesOf(state.currentDescribeBlock)
    if (event.name !== 'add_test') return
    const test = state.currentDescribeBlock.children.at(-1)
    if (test?.type === 'test') this.bridge.lastDefined = namesOf(test)
  }

  override async teardown(): Promise<void> {
    // A file that failed to load never runs: its interception is removed here.
    this.disposeBoundary()
    const dir = process.env[REPORT_DIR_ENV]
    if (dir) {
      const report: FileReport = {
        root: this.bridge.root,
        config: reportConfigOf(this.bridge.config),
        testFile: this.bridge.testFile,
        testPath: this.testPath,
        tapes: this.bridge.tapes,
        entries: this.bridge.entries,
      }
      const file = createHash('sha256').update(this.testPath).digest('hex').slice(0, 24)
      try {
        writeFileSync(join(dir, `${file}.json`), JSON.stringify(report))
      } catch {
        // The reporter's folder is gone (an interrupted run): there is no summary to feed.
      }
    }
    await super.teardown()
  }

  /** Removes the HTTP interception of the file's setup file, once. */
  private disposeBoundary(): void {
    const dispose = this.bridge.disposeBoundary
    this.bridge.disposeBoundary = undefined
    dispose?.()
  }
}

/** `--update-cassettes` (or `--resume-cassettes`) given after `--` reaches Jest as a test path pattern (matching no file). */
function switchesGiven(globalConfig: JestEnvironmentConfig['globalConfig']): string[] {
  const patterns = (globalConfig.testPathPatterns as { patterns?: unknown } | undefined)?.patterns
  return Array.isArray(patterns) ? patterns.filter((p): p is string => typeof p === 'string') : []
}

function blockNamesOf(block: Circus.DescribeBlock): string[] {
  const names: string[] = []
  for (let b = block; b.parent; b = b.parent) names.unshift(b.name)
  return names
}

function namesOf(test: Circus.TestEntry): string[] {
  const names = [test.name]
  for (let block = test.parent; block.parent; block = block.parent) names.unshift(block.name)
  return names
}
