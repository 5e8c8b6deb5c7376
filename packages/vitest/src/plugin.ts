import { fileURLToPath } from 'node:url'
import {
  applyModeSwitch,
  detectExec,
  replayKeyPlanFor,
  reportConfigOf,
  resolveTapeConfig,
  runModeOf,
} from '@agent-tape/runner-kit'
import type { Plugin } from 'vitest/config'
import { type AgentTapeOptions, type ProvidedTapeConfig, VITEST_CONFIG_SOURCE } from './options.js'
import { TapeSummaryReporter } from './reporter.js'

const SETUP_FILE = fileURLToPath(new URL('./setup.js', import.meta.url))

/**
 * The agent-tape plugin for `vitest.config.*`: adds the setup file that installs the
 * boundaries, reads the update and resume switches, and adds the run summary.
 *
 * @example
 * import { defineConfig } from 'vitest/config'
 * import { agentTape } from '@agent-tape/vitest/plugin'
 * export default defineConfig({ plugins: [agentTape({ harness: ['src/agent'] })] })
 */
export function agentTape(options: AgentTapeOptions = {}): Plugin {
  // Resolved now, so a bad option fails when the config loads rather than in every worker.
  const config = resolveTapeConfig(options, VITEST_CONFIG_SOURCE)
  return {
    name: 'agent-tape',
    config: () => ({ test: { setupFiles: [SETUP_FILE] } }),
    configureVitest({ vitest, project }) {
      // Vitest rejects unknown flags before `--`; what follows `--` reaches process.argv untouched.
      applyModeSwitch(process.argv, process.env)
      // Fails the run once, here, when CI asks to record (rather than in every test); the workers
      // inherit this process's environment, so what it resolves is theirs too.
      const mode = runModeOf(config, process.env)
      const provided: ProvidedTapeConfig = {
        ...config,
        root: project.config.root,
        exec: detectExec(process.env.npm_config_user_agent),
        runMode: mode,
        replayKeys: replayKeyPlanFor(mode),
      }
      project.provide('agentTape', provided)
      if (options.summary === false) return
      const reporters = vitest.config.reporters
      const names = reporters.map((r) => (Array.isArray(r) ? r[0] : r))
      // Blob shards are summarized once, by the `--merge-reports` run.
      if (names.includes('blob') || names.some((r) => r instanceof TapeSummaryReporter)) return
      reporters.push(new TapeSummaryReporter(reportConfigOf(config)))
    },
  }
}

export type { AgentTapeOptions, ProvidedTapeConfig, ReplayTiming } from './options.js'
