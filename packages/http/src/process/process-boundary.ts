import { readFileSync } from 'node:fs'
import { relative } from 'node:path'
import workerThreads, { isMainThread, type Worker } from 'node:worker_threads'
import { formatMessage, setProcessTape, type Tape } from '@agent-tape/core/internal'
import { installedBoundary } from '../boundary.js'
import { gatewayVariables, takeGatewayVariables } from '../gateway/address.js'
import { installHttpBoundary } from '../install.js'
import { installPatch, installPatches, type NodePatch } from '../network/node-patch.js'
import { boundaryVariables } from './child-env.js'
import { ProcessPlace } from './process-place.js'
import { writeProcessReport } from './process-report.js'
import {
  type ProcessSessionConfig,
  type ProcessSlot,
  SESSION_ENV,
  SLOT_ENV,
  sessionFiles,
} from './session.js'
import { openSessionTape } from './session-tape.js'
import { childVariablesHook } from './spawn-hook.js'

/** A Node process that the spawn hooks did not place (started in a way they do not see). */
const UNPLACED: ProcessSlot = { path: 'unplaced', lane: 'unplaced' }

/**
 * Gives this Node process the boundary of the session named in its environment, if any: the
 * interception, one tape for the whole process (recording its decisions, or replaying them from
 * the session's cassette) in the lane its place in the process tree gives it, its place handed
 * on to every child it starts, and its report written as it exits, however it exits. Does
 * nothing without a session.
 */
export async function startProcessBoundary(env: NodeJS.ProcessEnv = process.env): Promise<void> {
  const dir = env[SESSION_ENV]
  // A worker thread shares its process's place; it is not reached (see `warnOfWorkers`).
  if (!dir || !isMainThread) return
  const config = readConfig(dir)
  if (!config) return
  const slot = readSlot(env[SLOT_ENV])
  // Only this process was given this slot: its children get their own (or, through a shell, this one's).
  delete env[SLOT_ENV]
  const gateway = takeGatewayVariables(env)
  const place = new ProcessPlace(dir, slot)
  installHttpBoundary({ modelEndpoints: config.modelEndpoints, allowHosts: config.allowHosts })
  if (config.tapeHosts?.length) installedBoundary()!.settings.tapeHosts = [...config.tapeHosts]
  if (config.liveModel) installedBoundary()!.settings.liveModel = config.liveModel
  const tape = await openSessionTape(config, env, () => place.laneOfDecisions())
  setProcessTape(tape)
  // For the life of the process: its report is written as it exits.
  installPatches([
    () => installPatch(workerNotice, tape),
    () =>
      installPatch(childVariablesHook, (read) => {
        const slot = place.nextChild()
        return {
          ...boundaryVariables(dir, slot, read('NODE_OPTIONS')),
          ...(gateway ? gatewayVariables(gateway, slot, read) : {}),
        }
      }),
  ])
  reportOnExit(tape, place, dir, config, env)
}

/**
 * Notes each worker thread the process starts: the interception is this thread's, so what a
 * worker sends is neither recorded nor replayed. Said in the report, not refused: most workers
 * (a logger's transport, a bundler) send nothing.
 */
const workerNotice: NodePatch<Tape> = {
  name: 'worker-notice',
  apply(tapes) {
    const module = workerThreads as { Worker: typeof Worker }
    const Original = module.Worker
    module.Worker = class extends Original {
      constructor(...args: ConstructorParameters<typeof Worker>) {
        super(...args)
        const script =
          typeof args[0] === 'string' ? args[0] : args[0] instanceof URL ? args[0].href : 'a script'
        for (const tape of tapes)
          tape.warn(
            formatMessage({
              what: `A worker thread (${args[1]?.eval ? 'code given as a string' : script}) was started by ${process.argv[1] ? relative(process.cwd(), process.argv[1]) : 'a Node process'}`,
              why: "agent-tape reaches each Node process's main thread, not its worker threads: a request a worker sends is neither recorded nor replayed",
              fix: "Make the worker's model and HTTP requests from the main thread, or run the worker as a child process",
            }),
          )
      }
    }
    return {
      state: undefined,
      restore: () => {
        module.Worker = Original
      },
    }
  },
}

function readConfig(dir: string): ProcessSessionConfig | undefined {
  try {
    return JSON.parse(readFileSync(sessionFiles.config(dir), 'utf8')) as ProcessSessionConfig
  } catch {
    process.stderr.write(
      `${formatMessage({
        what: `This process (${process.argv.slice(1).join(' ')}) is not taped`,
        why: `its environment names the agent-tape session ${dir}, which is gone (${SESSION_ENV} outlived the command that set it)`,
        fix: `Unset ${SESSION_ENV}, and NODE_OPTIONS's --import of @agent-tape/http/preload`,
      })}\n`,
    )
    return undefined
  }
}

function readSlot(text: string | undefined): ProcessSlot {
  if (!text) return UNPLACED
  try {
    const slot = JSON.parse(text) as ProcessSlot
    return typeof slot.path === 'string' && typeof slot.lane === 'string' ? slot : UNPLACED
  } catch {
    return UNPLACED
  }
}

const SIGNALS = ['SIGINT', 'SIGTERM', 'SIGHUP'] as const

/**
 * Writes the report as the process exits: `exit` runs on a normal end, `process.exit()` and an
 * uncaught error, and only synchronous work. A signal ends a process without `exit` unless
 * something listens to it: when nothing else does, the report is written and the signal raised
 * again, so the process ends as it would have.
 */
function reportOnExit(
  tape: Tape,
  place: ProcessPlace,
  dir: string,
  config: ProcessSessionConfig,
  env: NodeJS.ProcessEnv,
): void {
  let written = false
  const write = (signal?: string) => {
    if (written) return
    written = true
    writeProcessReport({ tape, place, dir, config, env, ...(signal ? { signal } : {}) })
  }
  process.on('exit', () => write())
  for (const signal of SIGNALS) {
    const onSignal = () => {
      if (process.listenerCount(signal) > 1) return
      write(signal)
      process.removeListener(signal, onSignal)
      process.kill(process.pid, signal)
    }
    process.on(signal, onSignal)
  }
}
