/**
 * - `instant` (default): replay streams as fast as the consumer reads them.
 * - `recorded`: wait between events as long as the recording did.
 * - `{ speed }`: recorded timing divided by a factor (2 = twice as fast).
 */
export type ReplayTiming = 'instant' | 'recorded' | { speed: number }

/** How much faster than recorded a replay runs: 0 for instant. */
export function replaySpeed(timing: ReplayTiming): number {
  return timing === 'instant' ? 0 : timing === 'recorded' ? 1 : timing.speed
}

/** Errors a caller's own abort produces: replayed when the caller's signal fires, not before. */
export function isAbortError(error: { name: string } | undefined): boolean {
  return error?.name === 'AbortError' || error?.name === 'TimeoutError'
}

/**
 * Waits, as the recording did, for the caller's `signal` to fire, and resolves with its reason;
 * if it has not fired `fallbackMs` later, resolves with undefined (the recorded error is used).
 */
export function abortOf(signal: AbortSignal | undefined, fallbackMs: number): Promise<unknown> {
  if (signal?.aborted) return Promise.resolve(signal.reason)
  return new Promise((resolve) => {
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort)
      resolve(undefined)
    }, fallbackMs)
    const onAbort = () => {
      clearTimeout(timer)
      resolve(signal?.reason)
    }
    signal?.addEventListener('abort', onAbort, { once: true })
  })
}

/** How long a replayed abort waits for the caller's signal before failing with the recorded error. */
export const ABORT_FALLBACK_MS = 1000

export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms))
}
