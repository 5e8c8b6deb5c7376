import { AgentTapeError, type DecisionRecord, type Tape, toReplayedError } from '@agent-tape/core/internal'
import type { RequestOutcome } from '../handle-request.js'
import { isRecordedResponse } from '../recorded-response.js'
import { replayRefusal } from '../replay-checks.js'
import { buildReplayResponse } from '../replay-response.js'
import { ABORT_FALLBACK_MS, abortOf, isAbortError, replaySpeed, sleep } from '../replay-timing.js'
import type { TapedRequest } from './taped-request.js'

/**
 * The answer of a replayed decision: its recorded response paced by `timing`, or its recorded
 * failure. A replay the test could not wait for, or a framing the client would misread, is
 * refused before any client sees it, so every client fails with the same report.
 */
export async function replayedAnswer(taped: TapedRequest, record: DecisionRecord): Promise<RequestOutcome> {
  const { request, tape, config } = taped
  const refusal = replayRefusal(tape, record, config.timing)
  if (refusal) {
    tape.reportDivergence(refusal)
    return { type: 'error', error: refusal }
  }
  const speed = replaySpeed(config.timing)
  if (record.err) {
    // A caller's abort fails when the caller aborts again, as it did live (an SDK's timeout
    // then takes the path it took while recording), not at once; an instant replay waits a
    // moment for it, never the recorded time.
    const wait = speed > 0 ? record.ms / speed + ABORT_FALLBACK_MS : ABORT_FALLBACK_MS
    const reason = isAbortError(record.err) ? await abortOf(request.signal, wait) : undefined
    return { type: 'error', error: (reason as Error | undefined) ?? toReplayedError(record.err) }
  }
  if (!isRecordedResponse(record.out)) return { type: 'error', error: damagedResponse(tape, record.seq) }
  if (speed > 0 && record.out.headersAt) await sleep(record.out.headersAt / speed)
  return { type: 'respond', response: buildReplayResponse(record.out, config.timing, request.signal) }
}

function damagedResponse(tape: Tape, seq: number): AgentTapeError {
  return new AgentTapeError('ERR_TAPE_CORRUPT', {
    what: `Cannot replay decision #${seq} of ${tape.cassettePath}`,
    why: 'its "out" is not a recorded HTTP response (it needs a numeric "status" and a "headers" object)',
    fix: `Restore the cassette from version control, or re-record this test: ${tape.rerecordCommand}`,
  })
}
