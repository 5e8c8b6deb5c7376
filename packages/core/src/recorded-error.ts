import type { DecisionRecord, RecordedError } from './cassette-format.js'
import { fromJsonData } from './json-walk.js'

/**
 * The recorded outcome of a decision: its output as the value it was recorded from (bytes as a
 * Buffer, a typed array, …), or its error thrown again.
 */
export function replayOutcome(record: DecisionRecord): unknown {
  if (record.err) throw toReplayedError(record.err)
  return fromJsonData(record.out)
}

/** An error with the recorded name and message (and code), as the tool threw it while recording. */
export function toReplayedError(recorded: RecordedError): Error {
  const error = new Error(recorded.message)
  error.name = recorded.name
  if (recorded.code !== undefined) (error as Error & { code?: unknown }).code = recorded.code
  return error
}

/**
 * A thrown value as a cassette stores it: name, message, and a string or numeric `code`.
 *
 * @example
 * toRecordedError(new TypeError('fetch failed')) // => { name: 'TypeError', message: 'fetch failed' }
 */
export function toRecordedError(error: unknown): RecordedError {
  if (error instanceof Error || (typeof error === 'object' && error !== null && 'message' in error)) {
    const e = error as { name?: unknown; message?: unknown; code?: unknown }
    const recorded: RecordedError = { name: String(e.name ?? 'Error'), message: String(e.message ?? '') }
    if (typeof e.code === 'string' || typeof e.code === 'number') recorded.code = e.code
    return recorded
  }
  return { name: 'NonError', message: String(error) }
}
