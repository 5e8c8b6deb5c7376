import { openTape, type Tape, type TapeOptions } from '@agent-tape/core/internal'
import type { SessionResults } from '@agent-tape/http/process'
import type { CommandRunOptions } from './options.js'
import { startRequestWatch, type WatchedRequest } from './request-watch.js'
import { openCommandSession } from './session.js'
import { type CommandEnd, spawnCommand } from './spawn-command.js'

/** One run of a command under agent-tape, as `record` and `replay` plan it. */
export interface CommandRunPlan {
  /** What the command's Node processes do: record their decisions, or replay them. */
  mode: 'record' | 'replay' | 'live-tools'
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
}

/** What a run of a command left to judge: how it ended and what its processes reported. */
export interface CommandRun {
  end: CommandEnd
  results: SessionResults
  /** The tape of the command's environment reads, finished with the run. */
  envTape: Tape
  /** Requests a process agent-tape does not reach sent through the proxy variables. */
  watched: readonly WatchedRequest[]
}

/**
 * Runs a command with the boundary in each of its Node processes: opens the session its
 * processes report to and the tape of its environment reads, starts it with the watch proxy for
 * processes agent-tape does not reach, waits for it to end, collects what its processes reported,
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
    allowSecrets: [...(plan.options.allowSecrets ?? [])],
    rerecordCommand: plan.rerecordCommand,
    ...(plan.viewCommand ? { viewCommand: plan.viewCommand } : {}),
  })
  try {
    const envTape = await openTape({ id: plan.id, cassettePath: plan.shown, ...plan.envTape })
    if (plan.envKeys?.length) envTape.env(plan.envKeys)
    const watch = await startRequestWatch(plan.mode === 'record' ? 'record' : 'replay', plan.env)
    const end = await spawnCommand({
      argv: plan.argv,
      cwd: plan.cwd,
      env: session.env({ ...plan.env, ...watch.variables }),
      stdio: plan.options.stdio ?? 'inherit',
      output: {
        stdout: (text) => plan.options.onOutput?.('stdout', text),
        stderr: (text) => plan.options.onOutput?.('stderr', text),
      },
    }).finally(() => watch.close())
    return { end, results: await session.results(), envTape, watched: watch.seen }
  } finally {
    await session.remove()
  }
}
