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
 * abort, replayed when the caller aborts again). `serialized` keeps the bytes of each item
 * once made, for the next replay of the same recording. Unpaced, every item is queued at the
 * first read, each as its own chunk, so the reader does not wait for a pull per item.
 */
export function replayStream<Item extends TimedItem>(
  format: StreamFormat<Item>,
  events: readonly Item[],
  error: { name: string; message: string } | undefined,
  timing: ReplayTiming,
  headersAt: number,
  signal: AbortSignal | undefined,
  serialized: Uint8Array[] = [],
): ReadableStream<Uint8Array> {
  const speed = replaySpeed(timing)
  let index = 0
  // Event times count from the request; the wait for the headers was replayed before this.
  let previous = headersAt
  // A reader may change the chunk it was given: it gets its own copy of the kept bytes.
  const bytesOf = (i: number) => {
    serialized[i] ??= format.serialize(events[i]!)
    return new Uint8Array(serialized[i])
  }
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      if (speed === 0 && index < events.length) {
        // The end (or the recorded failure, which would drop what is queued) comes at the next pull.
        while (index < events.length) controller.enqueue(bytesOf(index++))
        return
      }
      const event = events[index]
      if (!event) {
        if (!error) return controller.close()
        // The caller aborted mid-stream while recording: the stream fails when it aborts again.
        const reason = isAbortError(error) ? await abortOf(signal, ABORT_FALLBACK_MS) : undefined
        // Live, a socket's failure comes in an I/O turn after its last bytes, which by then have
        // gone through the reader's pipes (a decoder, a parser): erroring the stream at once
        // would drop what those still hold, and the caller would miss the events before the cut.
        await new Promise((resolve) => setImmediate(resolve))
        controller.error(reason ?? toStreamError(error))
        return
      }
      if (speed > 0 && event.t > previous) await sleep((event.t - previous) / speed)
      previous = event.t
      controller.enqueue(bytesOf(index++))
    },
  })
}

function toStreamError(recorded: { name: string; message: string }): Error {
  const error = recorded.name === 'TypeError' ? new TypeError(recorded.message) : new Error(recorded.message)
  if (error.name !== recorded.name) error.name = recorded.name
  return error
}
