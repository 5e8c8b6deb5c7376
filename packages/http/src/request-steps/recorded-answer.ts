import { type BegunDecision, isAgentTapeError, toRecordedError } from '@agent-tape/core/internal'
import type { ModelCodec } from '../codecs/codec.js'
import type { RequestOutcome } from '../handle-request.js'
import { withLiveModel } from '../live-model.js'
import { performAndRecord } from '../record-response.js'
import { buildReplayResponse } from '../replay-response.js'
import type { StreamEvent } from '../streams/format.js'
import type { TapedRequest } from './taped-request.js'

/**
 * The answer of a recorded decision: the request performed for real, its response recorded as
 * the caller reads it (or whole first, then given to the caller as a replay would give it, see
 * `streamWhileRecording`). The decision completes with the answer (a codec's last event of a
 * stream), not with the socket.
 */
export async function recordedAnswer(
  taped: TapedRequest,
  decision: Extract<BegunDecision, { action: 'record' }>,
  codec: ModelCodec | undefined,
): Promise<RequestOutcome> {
  const { config, perform } = taped
  const isLastEvent = codec?.isLastEvent ? (event: StreamEvent) => codec.isLastEvent!(event) : undefined
  let request = taped.request
  const model = config.liveModel
  if (model && codec) {
    try {
      request = await withLiveModel(request, codec, model)
    } catch (error) {
      decision.complete({ err: toRecordedError(error) }, 0)
      if (isAgentTapeError(error)) taped.tape.reportDivergence(error)
      return { type: 'error', error: error as Error }
    }
  }
  const recording = await performAndRecord(decision, request, perform, isLastEvent, taped.clock)
  if ('error' in recording) return { type: 'error', error: recording.error }
  const { teed } = recording
  if (config.streamWhileRecording !== false) return { type: 'respond', response: teed.response }
  void teed.response.body?.cancel()
  try {
    return { type: 'respond', response: buildReplayResponse(await teed.recorded, 'instant') }
  } catch (error) {
    return { type: 'error', error: error as Error }
  }
}
