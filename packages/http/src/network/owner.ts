import {
  type AgentTapeError,
  activeTapes,
  claimingTapeCount,
  currentTape,
  type Tape,
} from '@agent-tape/core/runtime'
import { isPerformingForTape } from './performing.js'

/**
 * Who answers for a use of the network made now (a connection, a DNS query, a datagram, a child
 * process), when a tape records or replays: the current tape, or, outside every tape, the tapes
 * running beside it (which the use is refused for, blaming none of them), or, in a worker thread,
 * the tape that started it.
 */
export interface NetworkOwner {
  /**
   * `tape "x" is replaying, and a replay never reaches the network`, `tape "x" is recording`, or,
   * outside every tape, `2 tapes are running and <done> outside all of them`, where `done` says
   * what was done (`this connection was opened`).
   */
  who(done: string): string
  /** Whether every owning tape replays (a refusal then says the replay would have reached the network). */
  readonly replaying: boolean
  /** The tape the use belongs to, when it can be told: the one whose test made it. */
  readonly tape: Tape | undefined
  /** Whether the use happens in a worker thread started by the tape (agent-tape answers nothing there). */
  readonly inWorker: boolean
  /** Fails the owning tape with the refusal; a use that no tape can be blamed for fails none. */
  report(error: AgentTapeError): void
}

type OwnerSource = () => NetworkOwner | undefined

const KEY = Symbol.for('agent-tape.network-owner')
// Shared by the ESM and CJS builds of this package, as the tape context is.
const holder = globalThis as { [KEY]?: { worker?: OwnerSource } }
holder[KEY] ??= {}
const state = holder[KEY]

/**
 * The owner of a use of the network made now, or `undefined` when nothing is refused: no tape
 * records or replays in this context, or the boundary itself (or the function behind a recorded
 * decision) is the one reaching out. Costs two lookups when no tape runs: every connection and
 * DNS lookup of the process asks.
 */
export function networkOwner(): NetworkOwner | undefined {
  if (state.worker) return state.worker()
  const current = currentTape()
  if (!current && claimingTapeCount() === 0) return undefined
  if (isPerformingForTape()) return undefined
  // A run captured in a server fails open: its uses of the network, and those beside it, pass.
  const owners = (current ? [current] : activeTapes()).filter(
    (t) => t.action !== 'passthrough' && !t.failOpen,
  )
  if (owners.length === 0) return undefined
  const replaying = owners.every((t) => t.action === 'replay')
  return {
    who: (done) =>
      current
        ? `tape "${current.id}" is ${replaying ? 'replaying, and a replay never reaches the network' : 'recording'}`
        : `${owners.length} tape${owners.length === 1 ? ' is' : 's are'} running and ${done} outside all of them`,
    replaying,
    tape: current,
    inWorker: false,
    // Outside every tape it is refused all the same, but no tape is blamed for it: it may belong
    // to an ordinary test running beside them.
    report: (error) => current?.reportDivergence(error),
  }
}

/** In a worker thread started by a tape: where its owner comes from instead of the tape context. */
export function useWorkerOwner(source: OwnerSource): void {
  state.worker = source
}
