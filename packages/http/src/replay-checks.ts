import {
  AgentTapeError,
  type DecisionRecord,
  decisionLabel,
  type Tape,
  tapeInternals,
} from '@agent-tape/core/internal'
import { isRecordedResponse, type RecordedResponse } from './recorded-response.js'
import { type ReplayTiming, replaySpeed } from './replay-timing.js'
import { recordedStream } from './streams/index.js'

/**
 * Response headers agent-tape never records, because a replayed body is framed and encoded anew:
 * a recorded `content-length` of 10 GB would leave a node:http client waiting for bytes that never
 * come (and failing with a bare `aborted`), a `content-encoding` would have it decode a body that
 * is stored decoded. A cassette that has one was edited or written by another tool.
 */
const FRAMING_HEADERS = ['content-length', 'transfer-encoding', 'content-encoding']

/**
 * Why a recorded response cannot be replayed as it is, before any client sees it: a header that
 * would break its framing, or, paced as recorded, a wait longer than the test can give. Every
 * client (fetch, node:http, undici, HTTP/2) then fails with the same report, naming the decision.
 */
export function replayRefusal(
  tape: Tape,
  record: DecisionRecord,
  timing: ReplayTiming,
): AgentTapeError | undefined {
  // Named only when refused: reading a model request's label costs every replayed request.
  const where = () => `decision #${record.seq} (${decisionLabel(record)}) of ${tape.cassettePath}`
  const out = record.out
  const framing = framingHeader(out)
  if (framing) {
    return new AgentTapeError('ERR_TAPE_CORRUPT', {
      what: `Cannot replay ${where()}`,
      why: `${framing}; the cassette was edited or written by another tool`,
      fix: `Remove the header from that decision's "out", restore the cassette from version control, or re-record the test: ${tape.rerecordCommand}`,
    })
  }
  const speed = replaySpeed(timing)
  if (speed === 0) return undefined
  const recorded = record.err ? record.ms : isRecordedResponse(out) ? pacedDuration(out) : 0
  const waits = recorded / speed
  const left = tapeInternals(tape).replayWaitLeftMs()
  if (waits <= left) return undefined
  const pace = timing === 'recorded' ? "timing: 'recorded'" : `timing: { speed: ${speed} }`
  return new AgentTapeError('ERR_TAPE_TIMING', {
    what: `Cannot replay ${where()} as recorded`,
    why: `with ${pace} it would wait ${formatDuration(waits)} (the recording ${record.err ? `failed after ${formatDuration(record.ms)}` : `took ${formatDuration(recorded)} to answer`}), and the test has ${formatDuration(Math.max(0, left))} left of its time limit`,
    fix: `Replay it with timing: 'instant' (the default) or a higher speed, or give the test a longer time limit; if the recorded time is wrong, re-record the test: ${tape.rerecordCommand}`,
  })
}

/**
 * Why a recorded response's headers would break its replay (see {@link FRAMING_HEADERS}), as a
 * sentence: `its recorded response has a content-length header ("10737418240", 10 GB), …`.
 */
export function framingHeader(out: unknown): string | undefined {
  if (!isRecordedResponse(out)) return undefined
  for (const [header, value] of Object.entries(out.headers)) {
    const name = header.toLowerCase()
    if (!FRAMING_HEADERS.includes(name)) continue
    const size = name === 'content-length' ? `, ${formatBytes(Number(value))}` : ''
    const effect =
      name === 'content-encoding'
        ? 'have the client decode a body that is stored decoded'
        : 'leave the client waiting for bytes that never come'
    return `its recorded response has a ${name} header (${JSON.stringify(value)}${size}), which agent-tape never records: a replayed body is framed and encoded anew, and this header would ${effect}`
  }
  return undefined
}

/** Longer than any call a test records: a recorded time past it was edited, or is hostile. */
export const MAX_PLAUSIBLE_MS = 3_600_000

/**
 * The times of a recorded decision that no recording gives: a call longer than an hour, a
 * response whose headers or streamed items came after the call ended, items out of order, or a
 * time that is not a finite number. `verify` reports them; instant replay never waits them, and
 * a replay paced as recorded refuses a wait longer than the test can give.
 */
export function implausibleTimes(record: DecisionRecord): string[] {
  const problems: string[] = []
  const finite = (value: unknown) => typeof value === 'number' && Number.isFinite(value) && value >= 0
  if (!finite(record.ms)) problems.push(`its time "ms" is ${JSON.stringify(record.ms)}, not a duration`)
  else if (record.ms > MAX_PLAUSIBLE_MS)
    problems.push(`it took ${formatDuration(record.ms)}, longer than any call a test records (1 h)`)
  const out = record.out
  if (!isRecordedResponse(out)) return problems
  const limit = finite(record.ms) ? record.ms + 1 : Number.POSITIVE_INFINITY
  if (out.headersAt !== undefined) {
    if (!finite(out.headersAt))
      problems.push(`its "headersAt" is ${JSON.stringify(out.headersAt)}, not a duration`)
    else if (out.headersAt > limit)
      problems.push(
        `its headers came ${formatDuration(out.headersAt)} after the request, after the call ended (${formatDuration(record.ms)})`,
      )
  }
  let previous = 0
  for (const [i, item] of (recordedStream(out.body)?.items ?? []).entries()) {
    if (!finite(item.t)) {
      problems.push(`streamed item ${i + 1} has the time ${JSON.stringify(item.t)}, not a duration`)
      break
    }
    if (item.t > limit) {
      problems.push(
        `streamed item ${i + 1} came ${formatDuration(item.t)} after the request, after the call ended (${formatDuration(record.ms)})`,
      )
      break
    }
    if (item.t < previous) {
      problems.push(
        `streamed item ${i + 1} came at ${formatDuration(item.t)}, before the item before it (${formatDuration(previous)})`,
      )
      break
    }
    previous = item.t
  }
  return problems
}

/** How long a replay paced as recorded takes: until the headers, then until the last streamed item. */
export function pacedDuration(out: RecordedResponse): number {
  let last = out.headersAt ?? 0
  for (const item of recordedStream(out.body)?.items ?? []) if (item.t > last) last = item.t
  return last
}

/** `36,000,000 ms (10 h)`: the milliseconds, and a round figure a reader takes in. */
export function formatDuration(ms: number): string {
  const exact = `${Math.round(ms).toLocaleString('en')} ms`
  if (ms < 1000) return exact
  const [value, unit] =
    ms >= 3_600_000 ? [ms / 3_600_000, 'h'] : ms >= 60_000 ? [ms / 60_000, 'min'] : [ms / 1000, 's']
  return `${exact} (${Number(value.toPrecision(2))} ${unit})`
}

function formatBytes(bytes: number): string {
  if (!Number.isFinite(bytes)) return 'not a length'
  const units = ['bytes', 'KB', 'MB', 'GB', 'TB']
  let value = bytes
  let unit = 0
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024
    unit++
  }
  return unit === 0 ? `${bytes} bytes` : `${Number(value.toPrecision(3))} ${units[unit]}`
}
