import { readFileSync } from 'node:fs'
import { openTape, type Tape, type TapeOptions } from '@agent-tape/core/internal'
import type { ProcessSessionConfig } from './session.js'

/**
 * The tape of one process of a session (a Node process, or the gateway's lane of a process
 * outside Node): recording its decisions for the command's cassette, or replaying them from it,
 * in the lane `lane` names at its first decision.
 */
export function openSessionTape(
  config: ProcessSessionConfig,
  env: NodeJS.ProcessEnv,
  lane: () => string,
  extra: Pick<TapeOptions, 'stepsInKeys'> = {},
): Promise<Tape> {
  return openTape({
    id: config.id,
    cassettePath: config.cassettePath,
    // Replay reads the session's cassette; a recording keeps its decisions until the process ends.
    store: {
      read: async () => (config.cassetteFile ? readFileSync(config.cassetteFile, 'utf8') : null),
      write: async () => {},
    },
    mode: config.mode === 'record' ? 'update' : config.mode,
    // The session's mode, whatever AGENT_TAPE_MODE the command inherited.
    env: { ...env, AGENT_TAPE_MODE: undefined },
    allowRecordingInCI: true,
    runsIn: 'command',
    // The command's unused decisions are counted over all its processes, by whoever started it.
    failOnUnused: false,
    lane,
    allowSecrets: config.allowSecrets,
    rerecordCommand: config.rerecordCommand,
    ...(config.viewCommand ? { viewCommand: config.viewCommand } : {}),
    ...extra,
  })
}
