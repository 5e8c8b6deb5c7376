import { AsyncLocalStorage } from 'node:async_hooks'
import { isInsideDecision } from '@agent-tape/core/context'

const KEY = Symbol.for('agent-tape.performing')
const holder = globalThis as { [KEY]?: AsyncLocalStorage<true> }
// One store per process, shared by the ESM and CJS builds, like the tape context.
holder[KEY] ??= new AsyncLocalStorage<true>()
const performing = holder[KEY]

/** Runs `fn` (the boundary's own network call while recording) past the network guards. */
export function performingForTape<T>(fn: () => T): T {
  return performing.run(true, fn)
}

/**
 * Whether the code running now is the boundary's own network call, or the function behind a
 * recorded decision (a tool's own request), whose outcome that decision records.
 */
export function isPerformingForTape(): boolean {
  return performing.getStore() === true || isInsideDecision()
}
