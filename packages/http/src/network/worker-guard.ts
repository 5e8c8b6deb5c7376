import { join } from 'node:path'
import workerThreads, { type WorkerOptions } from 'node:worker_threads'
import { AgentTapeError, onTapeFinish, type Tape } from '@agent-tape/core/runtime'
import type { EndpointPattern } from '../endpoints.js'
import { packageFolder } from '../package-folder.js'
import type { HostPattern } from './allow-hosts.js'
import type { NodePatch } from './node-patch.js'
import { networkOwner } from './owner.js'
import {
  createWorkerReport,
  readWorkerReport,
  WORKER_DATA_KEY,
  type WorkerGuardData,
} from './worker-report.js'

export interface WorkerGuardConfig {
  modelEndpoints: readonly EndpointPattern[]
  allowHosts: readonly HostPattern[]
}

type WorkerClass = typeof workerThreads.Worker

/** The reports of the workers each tape started, read as the tape finishes. */
const started = new WeakMap<Tape, Int32Array[]>()

/**
 * Workers started while a tape records or replays belong to that tape: agent-tape records and
 * replays nothing in a worker thread, so the worker's network use (TCP and TLS connections, DNS
 * queries, UDP datagrams that are not loopback or in `allowHosts`) is refused there, as in the
 * main thread, for as long as the tape runs, and the tape fails with the first refusal when it
 * finishes. A worker gets the guard by a `--require` of `worker-preload` in its `execArgv`
 * (added to what it would inherit) and learns its tape from the environment data it starts with;
 * nothing else about it changes, so workers that use no network (a logger's transport, a
 * tokenizer) run as before. Workers started outside tapes are left alone.
 */
export const workerGuard: NodePatch<WorkerGuardConfig> = {
  name: 'worker-guard',
  apply(configs) {
    const original = workerThreads.Worker
    workerThreads.Worker = class Worker extends original {
      constructor(filename: string | URL, options: WorkerOptions = {}) {
        const guard = guardFor(configs)
        if (!guard) {
          super(filename, options)
          return
        }
        const previous = workerThreads.getEnvironmentData(WORKER_DATA_KEY)
        workerThreads.setEnvironmentData(WORKER_DATA_KEY, guard.data as never)
        try {
          super(filename, {
            ...options,
            execArgv: [...(options.execArgv ?? process.execArgv), '--require', preloadPath()],
          })
        } finally {
          workerThreads.setEnvironmentData(WORKER_DATA_KEY, previous as never)
        }
        const reports = started.get(guard.tape) ?? []
        reports.push(guard.data.report)
        started.set(guard.tape, reports)
      }
    } as WorkerClass
    const stop = onTapeFinish((tape) => {
      for (const report of started.get(tape) ?? []) {
        const refused = readWorkerReport(report)
        if (refused) tape.reportDivergence(new AgentTapeError('ERR_TAPE_NETWORK', refused))
      }
      started.delete(tape)
    })
    return {
      state: undefined,
      restore: () => {
        workerThreads.Worker = original
        stop()
      },
    }
  },
}

/** What a worker started now gets, when a tape records or replays in this context. */
function guardFor(
  configs: ReadonlySet<WorkerGuardConfig>,
): { tape: Tape; data: WorkerGuardData } | undefined {
  const tape = configs.size > 0 ? networkOwner()?.tape : undefined
  if (!tape) return undefined
  return {
    tape,
    data: {
      tape: tape.id,
      action: tape.action === 'replay' ? 'replay' : 'record',
      // Functions cannot be sent to a thread: an endpoint given as one is not seen there.
      modelEndpoints: [...configs].flatMap((c) => c.modelEndpoints).filter((p) => typeof p !== 'function'),
      allowHosts: [...configs].flatMap((c) => c.allowHosts),
      report: createWorkerReport(),
    },
  }
}

/**
 * The CommonJS build of `worker-preload`: `--require` loads CommonJS in every Node version and in
 * workers started from code (`eval: true`), where `--import` is not run.
 */
function preloadPath(): string {
  return join(packageFolder(), 'dist', 'cjs', 'network', 'worker-preload.js')
}
