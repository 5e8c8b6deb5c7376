import type { EndpointPattern } from '../endpoints.js'
import type { HostPattern } from './allow-hosts.js'

/** The environment data key under which a worker started by a tape finds its {@link WorkerGuardData}. */
export const WORKER_DATA_KEY = 'agent-tape.worker-guard'

/** What a worker started while a tape records or replays is told, when it starts. */
export interface WorkerGuardData {
  /** The tape's id, for messages. */
  tape: string
  action: 'replay' | 'record'
  /** Patterns a thread can receive: strings and RegExps. */
  modelEndpoints: EndpointPattern[]
  allowHosts: HostPattern[]
  /** Shared with the main thread (see {@link createWorkerReport}). */
  report: Int32Array
}

// [running, refusals, message length, first refusal claimed] then the message's UTF-8 bytes.
const RUNNING = 0
const REFUSALS = 1
const LENGTH = 2
const CLAIMED = 3
const HEADER = 4
const MESSAGE_BYTES = 16 * 1024

/**
 * Memory shared by the main thread and a worker its tape started: the main thread says whether
 * the tape still runs, the worker counts its refusals and writes the first one's message, and
 * the tape reads it as it finishes. Shared memory rather than messages: it is read the moment the
 * tape finishes, whatever the worker's event loop is doing.
 */
export function createWorkerReport(): Int32Array {
  const report = new Int32Array(new SharedArrayBuffer(HEADER * 4 + MESSAGE_BYTES))
  Atomics.store(report, RUNNING, 1)
  return report
}

/** In the worker: whether the tape that started it still runs. */
export function isTapeRunning(report: Int32Array): boolean {
  return Atomics.load(report, RUNNING) === 1
}

/** In the worker: counts a refusal, and keeps its message when it is the first. */
export function writeWorkerRefusal(report: Int32Array, message: string): void {
  if (Atomics.compareExchange(report, CLAIMED, 0, 1) === 0) {
    const bytes = new TextEncoder().encode(message).subarray(0, MESSAGE_BYTES)
    new Uint8Array(report.buffer, HEADER * 4, MESSAGE_BYTES).set(bytes)
    Atomics.store(report, LENGTH, bytes.length)
  }
  // Counted once the message is written: a count the main thread sees comes with its message.
  Atomics.add(report, REFUSALS, 1)
}

/**
 * In the main thread, as the tape finishes: ends the worker's guard, and returns the first
 * refusal's message (with how many more there were), if any.
 */
export function readWorkerReport(report: Int32Array): string | undefined {
  Atomics.store(report, RUNNING, 0)
  const refusals = Atomics.load(report, REFUSALS)
  if (refusals === 0) return undefined
  const length = Atomics.load(report, LENGTH)
  // A view of shared memory cannot be decoded in place: a copy is.
  const message = new TextDecoder().decode(new Uint8Array(report.buffer, HEADER * 4, length).slice())
  return refusals === 1 ? message : `${message}\n\n(${refusals - 1} more refused in the same worker.)`
}
