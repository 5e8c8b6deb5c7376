import { openTape, type Tape, type TapeOptions } from '@agent-tape/core/internal'
import {
  type GatewayNotice,
  gatewayVariables,
  type ProcessSessionConfig,
  type SessionResults,
  startGatewayProcess,
} from '@agent-tape/http/process'
import type { CommandRunOptions } from './options.js'
import { openCommandSession } from './session.js'
import { type CommandEnd, spawnCommand } from './spawn-command.js'

/** One run of a command under agent-tape, as `record` and `replay` plan it. */
export interface CommandRunPlan {
  /**
   * What the command's Node processes do: record their decisions, replay them, or replay them
   * while they match and record from the first that does not (`resume`).
   */
  mode: ProcessSessionConfig['mode']
  /** The cassette's id (its file name without `.jsonl`) and its path as printed. */
  id: string
  shown: string
  /** The cassette the processes replay from (replay only). */
  cassetteFile?: string
  /** The command to start, and the folder it starts in. */
  argv: readonly string[]
  cwd: string
  /** Its environment, before the session's variables are added. */
  env: Record<string, string | undefined>
  modelEndpoints: readonly string[]
  options: CommandRunOptions
  rerecordCommand: string
  viewCommand?: string
  /**
   * The tape of the command's own environment reads (decisions of the CLI, in the main lane at
   * step 0): its options beyond the id and path, and the variables it reads.
   */
  envTape: Omit<TapeOptions, 'id' | 'cassettePath'>
  envKeys: readonly string[] | undefined
  /** The upstreams of the gateway's routes a recording used (replay only). */
  upstreams?: Record<string, string>
  /** The model the live model requests are sent to instead of their own (`resume` only). */
  liveModel?: string
}

/** What a run of a command left to judge: how it ended and what its processes reported. */
export interface CommandRun {
  end: CommandEnd
  results: SessionResults
  /** The tape of the command's environment reads, finished with the run. */
  envTape: Tape
  /** What the gateway did not tape: a tunnel, a request it could not read or take. */
  notices: readonly GatewayNotice[]
  /** The upstream of each of the gateway's routes. */
  upstreams: Record<string, string>
}

/**
 * Runs a command with the boundary in each of its Node processes: opens the session its
 * processes report to and the tape of its environment reads, starts the gateway for its
 * processes outside Node (see `startGatewayProcess`) and the command with the gateway's
 * variables, waits for it to end, collects what its processes reported,
 * and removes the session whatever happened. What the run means (a cassette to write, a replay to
 * judge) is the caller's verdict.
 */
export async function runCommand(plan: CommandRunPlan): Promise<CommandRun> {
  const session = await openCommandSession({
    mode: plan.mode,
    id: plan.id,
    cassettePath: plan.shown,
    ...(plan.cassetteFile ? { cassetteFile: plan.cassetteFile } : {}),
    modelEndpoints: [...plan.modelEndpoints],
    allowHosts: [...(plan.options.allowHosts ?? [])],
    ...(plan.options.tapeHosts?.length ? { tapeHosts: [...plan.options.tapeHosts] } : {}),
    allowSecrets: [...(plan.options.allowSecrets ?? [])],
    rerecordCommand: plan.rerecordCommand,
    ...(plan.viewCommand ? { viewCommand: plan.viewCommand } : {}),
    ...(plan.liveModel ? { liveModel: plan.liveModel } : {}),
  })
  try {
    const envTape = await openTape({ id: plan.id, cassettePath: plan.shown, ...plan.envTape })
    if (plan.envKeys?.length) envTape.env(plan.envKeys)
    const gateway = await startGatewayProcess({
      dir: session.dir,
      // A resumed run reaches the network as a recording does.
      mode: plan.mode === 'resume' ? 'record' : plan.mode,
      env: plan.env,
      ...(plan.upstreams ? { upstreams: plan.upstreams } : {}),
      ...(plan.options.gatewayPort !== undefined ? { port: plan.options.gatewayPort } : {}),
      ...(plan.options.maxRequestBytes !== undefined
        ? { maxRequestBytes: plan.options.maxRequestBytes }
        : {}),
      ...(plan.options.interceptHttps ? { interceptHttps: true } : {}),
    })
    let notices: GatewayNotice[] = []
    const end = await spawnCommand({
      argv: plan.argv,
      cwd: plan.cwd,
      env: session.env({ ...plan.env, ...gatewayVariables(gateway.address, { path: '', lane: '' }) }),
      stdio: plan.options.stdio ?? 'inherit',
      output: {
        stdout: (text) => plan.options.onOutput?.('stdout', text),
        stderr: (text) => plan.options.onOutput?.('stderr', text),
      },
    }).finally(async () => {
      notices = await gateway.close()
    })
    return { end, results: await session.results(), envTape, notices, upstreams: gateway.upstreams }
  } finally {
    await session.remove()
  }
}
