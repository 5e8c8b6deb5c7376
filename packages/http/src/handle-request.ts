import {
  AgentTapeError,
  currentTape,
  isAgentTapeError,
  type ReservedRequest,
  redactUrl,
} from '@agent-tape/core/internal'
import { classifyUrl, type EndpointPattern } from './endpoints.js'
import { refuseKeylessRecording } from './keyless-recording.js'
import type { HostPattern } from './network/allow-hosts.js'
import type { ReplayTiming } from './replay-timing.js'
import { answerOutsideTapes } from './request-steps/attribution.js'
import { beginDecision } from './request-steps/begin.js'
import { preflight } from './request-steps/preflight.js'
import { recordedAnswer } from './request-steps/recorded-answer.js'
import { replayedAnswer } from './request-steps/replayed-answer.js'
import type { TapedRequest } from './request-steps/taped-request.js'

export interface BoundaryConfig {
  modelEndpoints: readonly EndpointPattern[]
  timing: ReplayTiming
  /** Hosts that pass through untaped in every mode (see {@link HostPattern}). */
  allowHosts?: readonly HostPattern[]
  /** Hosts whose requests are taped as other HTTP even on loopback (`tapeHandlers({ hosts })`). */
  tapeHosts?: readonly HostPattern[]
  /**
   * While recording, hand the caller the live body as it arrives (default). `false` reads the
   * whole answer first: MSW 2 stalls on a mocked body that the caller cancels while MSW's own
   * copy of it is unread, which a live stream from the network makes likely.
   */
  streamWhileRecording?: boolean
  /**
   * The model every recorded model request is sent to instead of its own (`agent-tape replay
   * --from <n> --model <name>`); the decision keeps the request as the caller made it.
   */
  liveModel?: string
}

/** What to do with an intercepted request. */
export type RequestOutcome =
  | { type: 'passthrough' }
  | { type: 'respond'; response: Response }
  | { type: 'error'; error: Error }

/** How a request observed earlier is decided now (see `recordObserved`). */
export interface LaterDecision {
  /** The times the request had as it happened. */
  clock: () => number
  /** The place the run held for it as it was sent. */
  reserved?: ReservedRequest | undefined
}

/**
 * Decides the fate of one outgoing request, for the interceptor and for MSW handlers alike:
 * replay it from the current tape, record it by performing it for real, or let it pass
 * (loopback traffic, no tape, live mode). `perform` sends a request to the network without
 * being intercepted again; with `later`, it gives the answer observed as the request happened.
 */
export async function handleRequest(
  request: Request,
  config: BoundaryConfig,
  perform: (request: Request) => Promise<Response>,
  later?: LaterDecision,
): Promise<RequestOutcome> {
  const url = new URL(request.url)
  const requestClass = classifyUrl(url, config.modelEndpoints, config.allowHosts, config.tapeHosts)
  const tape = currentTape()
  if (!tape) return answerOutsideTapes(request, url, requestClass)
  const taped: TapedRequest = { request, url, requestClass, tape, config, perform }
  if (later) {
    taped.clock = later.clock
    if (later.reserved) taped.reserved = later.reserved
  }
  return tape.failOpen ? answerFailingOpen(taped) : answerForTape(taped)
}

/**
 * The steps of a request that belongs to a tape, in order: what is settled before any decision
 * (MCP, a model call to an undeclared host, what passes, a recording without a key), then the
 * decision begun, then the answer of its action.
 */
async function answerForTape(taped: TapedRequest): Promise<RequestOutcome> {
  const settled = await preflight(taped)
  if (settled) return settled
  const begun = await beginDecision(taped)
  if ('outcome' in begun) return begun.outcome
  const { decision, codec } = begun
  if (decision.action === 'passthrough') return { type: 'passthrough' }
  if (decision.action === 'replay') return replayedAnswer(taped, decision.record)
  if (taped.tape.mode === 'resume') {
    // A resumed run records from its first miss on, and never with a placeholder key either.
    const refused = refuseKeylessRecording(taped.request, taped.url, taped.tape)
    if (refused) {
      decision.complete({ err: { name: 'AgentTapeError', message: 'not sent: no API key' } }, 0)
      return refused
    }
  }
  return recordedAnswer(taped, decision, codec)
}

/**
 * A request of a run that serves real traffic (a run captured in a server): it is recorded as a
 * test's would be, and whatever keeps it from being recorded lets it pass for real and fails the
 * tape instead, whose owner then drops the recording. The app never sees an error of ours, and
 * the request is never sent twice.
 */
async function answerFailingOpen(taped: TapedRequest): Promise<RequestOutcome> {
  let sent = false
  const perform = (request: Request) => {
    sent = true
    return taped.perform(request)
  }
  try {
    return await answerForTape({ ...taped, perform })
  } catch (error) {
    taped.tape.reportDivergence(unrecorded(taped.request, error))
    // Not sent yet: letting it pass sends it once. (Once sent, it cannot be sent again.)
    return sent ? { type: 'error', error: error as Error } : { type: 'passthrough' }
  }
}

/** Why a request of a run that fails open went unrecorded (see {@link answerFailingOpen}). */
function unrecorded(request: Request, error: unknown): AgentTapeError {
  if (isAgentTapeError(error)) return error
  return new AgentTapeError('ERR_TAPE_USAGE', {
    what: `Cannot record ${request.method} ${redactUrl(request.url)}`,
    why: error instanceof Error ? error.message : String(error),
    fix: 'The request went out unrecorded and the recording of its run was dropped; report this with the request if it keeps happening',
  })
}
