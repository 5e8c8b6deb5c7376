import {
  type BegunDecision,
  deepInputError,
  isAgentTapeError,
  isReplayMiss,
  isStackOverflow,
  type ReplayMiss,
  tapeInternals,
} from '@agent-tape/core/internal'
import type { ModelCodec } from '../codecs/codec.js'
import { errorAnswer } from '../error-answer.js'
import type { RequestOutcome } from '../handle-request.js'
import { readRequestBytes } from '../request-body.js'
import {
  decideRequest,
  expectedKind,
  type RequestDecision,
  type RequestParts,
  readRequestParts,
  wireHead,
} from '../request-input.js'
import type { TapedRequest } from './taped-request.js'

/** A request begun as a decision of its tape, or the answer it gets instead. */
export type Begun = { decision: BegunDecision; codec: ModelCodec | undefined } | { outcome: RequestOutcome }

/**
 * Begins the request's decision: replayed by its fingerprint, or keyed from its canonical input
 * (computed only when the fingerprint does not answer it, see `Tape.beginRequest`). A miss is
 * answered here (see {@link missAnswer}); in a run that fails open, whatever the tape throws goes
 * to the caller, which lets the request pass.
 */
export async function beginDecision(taped: TapedRequest): Promise<Begun> {
  const { request, url, requestClass, tape } = taped
  // A replayed request is answered from the tape and never sent, so its body needs no copy.
  const body = await readRequestBytes(request, tape.action === 'replay')
  const parts = readRequestParts(request, url, requestClass, body)
  try {
    const decision = tapeInternals(tape).beginRequest({
      kind: expectedKind(parts),
      head: wireHead(parts),
      body,
      decide: () => readDecision(parts),
      ...(taped.reserved ? { reserved: taped.reserved } : {}),
    })
    return { decision, codec: parts.codec }
  } catch (thrown) {
    const unreadable = thrown instanceof UnreadableRequest
    const error = unreadable ? thrown.cause : thrown
    if (tape.failOpen) throw error
    if (!unreadable) return { outcome: missAnswer(parts, error) }
    if (!isStackOverflow(error)) throw error
    const refused = deepInputError(requestClass === 'model' ? 'llm' : 'http', error)
    tape.reportDivergence(refused)
    return { outcome: { type: 'error', error: refused } }
  }
}

/**
 * What reading the request as decision input threw, told apart from what the tape throws: it
 * passes through `Tape.beginRequest` unchanged, and is unwrapped as it comes out.
 */
class UnreadableRequest {
  constructor(readonly cause: unknown) {}
}

function readDecision(parts: RequestParts): RequestDecision {
  try {
    return decideRequest(parts)
  } catch (error) {
    throw new UnreadableRequest(error)
  }
}

/**
 * What the tape threw while beginning the decision. A replay miss of a model request its codec
 * read (a decision of kind `llm`), and a model request over a drift run's budget, are answered in
 * the provider's error shape, so that the SDK stops at once with the report; any other miss, and
 * any other error, fails the request.
 */
function missAnswer(parts: RequestParts, error: unknown): RequestOutcome {
  // A model request the tape's live gate refused (a drift run's budget) is never sent.
  if (isAgentTapeError(error) && error.code === 'ERR_TAPE_BUDGET' && parts.codec)
    return { type: 'respond', response: errorAnswer(parts.codec, error.message, 'budget') }
  if (!isReplayMiss(error)) return { type: 'error', error: error as Error }
  const codec = readByCodec(error) ? parts.codec : undefined
  if (!codec) return { type: 'error', error }
  return { type: 'respond', response: errorAnswer(codec, error.message, 'replay-miss') }
}

/** A request is decided as `llm` exactly when its codec read it (see `decideRequest`). */
function readByCodec(miss: ReplayMiss): boolean {
  return miss.details.kind === 'llm'
}
