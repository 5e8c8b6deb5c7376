import { fileURLToPath } from 'node:url'
import {
  assertKnownOptions,
  ConfigError,
  DEFAULT_CASSETTE_DIR,
  detectExec,
  PRUNE_FLAG,
  resolveMode,
  setModeFromFlag,
  UPDATE_FLAG,
} from '@agent-tape/core'
import type { Plugin } from 'vitest/config'
import {
  type AgentTapeOptions,
  OPTION_NAMES,
  type ProvidedTapeConfig,
  serializePattern,
  serializeRegExp,
} from './options.js'
import { TapeSummaryReporter } from './reporter.js'

const SETUP_FILE = fileURLToPath(new URL('./setup.js', import.meta.url))

/**
 * The agent-tape plugin for `vitest.config.*`: adds the setup file that installs the
 * boundaries, reads the update flag, and adds the run summary.
 *
 * @example
 * import { defineConfig } from 'vitest/config'
 * import { agentTape } from '@agent-tape/vitest/plugin'
 * export default defineConfig({ plugins: [agentTape({ harness: ['src/agent'] })] })
 */
export function agentTape(options: AgentTapeOptions = {}): Plugin {
  // Serialize now, so a bad option fails when the config loads rather than in every worker.
  assertKnownOptions(options, OPTION_NAMES, 'the agentTape() options')
  const provided: Omit<ProvidedTapeConfig, 'root' | 'exec'> = {
    cassetteDir: options.cassetteDir ?? DEFAULT_CASSETTE_DIR,
    ...(options.mode ? { mode: options.mode } : {}),
    modelEndpoints: (options.modelEndpoints ?? []).map(serializePattern),
    allowHosts: (options.allowHosts ?? []).map(serializePattern),
    interception: assertInterception(options.interception),
    ...(options.harness
      ? { harness: { paths: [...options.harness], strict: options.strictHarness === true } }
      : {}),
    failOnUnused: options.failOnUnused !== false,
    redactors: (options.redactors ?? []).map((r) => ({
      name: r.name,
      pattern: serializeRegExp(r.pattern, `redactor ${JSON.stringify(r.name)}`),
      ...(r.replacement === undefined ? {} : { replacement: r.replacement }),
    })),
    normalizers: (options.normalizers ?? []).map((n) => ({
      name: n.name,
      ...(n.kinds ? { kinds: [...n.kinds] } : {}),
      pattern: serializeRegExp(n.pattern, `normalizer ${JSON.stringify(n.name)}`),
      replacement: n.replacement,
    })),
    allowSecrets: (options.allowSecrets ?? []).map(serializePattern),
    timing: options.timing ?? 'instant',
    allowRecordingInCI: options.allowRecordingInCI === true,
  }
  return {
    name: 'agent-tape',
    config: () => ({ test: { setupFiles: [SETUP_FILE] } }),
    configureVitest({ vitest, project }) {
      // Vitest rejects unknown flags before `--`; what follows `--` reaches process.argv untouched.
      if (process.argv.includes(UPDATE_FLAG)) setModeFromFlag(process.env, 'update', UPDATE_FLAG)
      // Fails the run once, here, when CI asks to record (rather than in every test).
      resolveMode({
        mode: options.mode,
        env: process.env,
        allowRecordingInCI: options.allowRecordingInCI === true,
      })
      const config: ProvidedTapeConfig = {
        ...provided,
        root: project.config.root,
        exec: detectExec(process.env.npm_config_user_agent),
      }
      project.provide('agentTape', config)
      if (options.summary === false) return
      const reporters = vitest.config.reporters
      const names = reporters.map((r) => (Array.isArray(r) ? r[0] : r))
      // Blob shards are summarized once, by the `--merge-reports` run.
      if (names.includes('blob') || names.some((r) => r instanceof TapeSummaryReporter)) return
      reporters.push(
        new TapeSummaryReporter({
          cassetteDir: provided.cassetteDir,
          prune: process.argv.includes(PRUNE_FLAG),
        }),
      )
    },
  }
}

export type { AgentTapeOptions, ProvidedTapeConfig, ReplayTiming } from './options.js'

function assertInterception(value: unknown): 'agent-tape' | 'msw' {
  if (value === undefined || value === 'agent-tape') return 'agent-tape'
  if (value === 'msw') return 'msw'
  throw new ConfigError({
    what: `Invalid interception ${JSON.stringify(value)} in the agentTape() options`,
    why: 'it is "agent-tape" (the default: agent-tape intercepts requests itself) or "msw" (your MSW server does, with tapeHandlers() among its handlers)',
    fix: "Write interception: 'msw', or leave it out",
  })
}
