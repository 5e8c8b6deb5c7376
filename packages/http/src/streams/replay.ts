import {
  ABORT_FALLBACK_MS,
  abortOf,
  isAbortError,
  type ReplayTiming,
  replaySpeed,
  sleep,
} from '../replay-timing.js'
import type { StreamFormat, TimedItem } from './format.js'

/**
 * A recorded stream as a live one: each item sent as the bytes it was received as, paced by
 * `timing`, and failing at the end as the recording did (a cut connection, or the caller's
 * abort, replayed when the caller aborts again).
 */
export function replayStream<Item extends TimedItem>(
  format: StreamFormat<Item>,
  events: readonly Item[],
  error: { name: string; message: string } | undefined,
  timing: ReplayTiming,
  headersAt: number,
  signal: AbortSignal | undefined,
): ReadableStream<Uint8Array> {
  const speed = replaySpeed(timing)
  let index = 0
  // Event times count from the request; the wait for the headers was replayed before this.
  let previous = headersAt
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      const event = events[index]
      if (!event) {
        if (!error) return controller.close()
        // The caller aborted mid-stream while recording: the stream fails when it aborts again.
        const reason = isAbortError(error) ? await abortOf(signal, ABORT_FALLBACK_MS) : undefined
        controller.error(reason ?? toStreamError(error))
        return
      }
      if (speed > 0 && event.t > previous) await sleep((event.t - previous) / speed)
      previous = event.t
      index++
      controller.enqueue(format.serialize(event))
    },
  })
}

function toStreamError(recorded: { name: string; message: string }): Error {
  const error = recorded.name === 'TypeError' ? new TypeError(recorded.message) : new Error(recorded.message)
  if (error.name !== recorded.name) error.name = recorded.name
  return error
}
