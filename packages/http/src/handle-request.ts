import {
  AgentTapeError,
  claimingTapeCount,
  currentTape,
  deepInputError,
  isAgentTapeError,
  isInsideDecision,
  isReplayMiss,
  isStackOverflow,
  mcpOutsideTapeError,
  redactUrl,
  replaysOutsideTapes,
  type Tape,
  tapeInternals,
  toReplayedError,
} from '@agent-tape/core/internal'
import { findCodec } from './codecs/index.js'
import { classifyUrl, type EndpointPattern, passesThrough, type RequestClass } from './endpoints.js'
import { errorAnswer } from './error-answer.js'
import { refuseKeylessRecording } from './keyless-recording.js'
import { handleMcpRequest, readMcpRequest } from './mcp-http.js'
import type { HostPattern } from './network/allow-hosts.js'
import { performAndRecord } from './record-response.js'
import { isRecordedResponse } from './recorded-response.js'
import { replayRefusal } from './replay-checks.js'
import { buildReplayResponse } from './replay-response.js'
import {
  ABORT_FALLBACK_MS,
  abortOf,
  isAbortError,
  type ReplayTiming,
  replaySpeed,
  sleep,
} from './replay-timing.js'
import { readRequestBytes } from './request-body.js'
import {
  decideRequest,
  expectedKind,
  type RequestDecision,
  readRequestParts,
  wireHead,
} from './request-input.js'
import type { StreamEvent } from './streams/format.js'
import { modelLookalike, undeclaredModelError } from './unconfigured-model.js'

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
}

/** What to do with an intercepted request. */
export type RequestOutcome =
  | { type: 'passthrough' }
  | { type: 'respond'; response: Response }
  | { type: 'error'; error: Error }

/**
 * Decides the fate of one outgoing request, for the interceptor and for MSW handlers alike:
 * replay it from the current tape, record it by performing it for real, or let it pass
 * (loopback traffic, no tape, live mode). `perform` sends a request to the network without
 * being intercepted again.
 */
export async function handleRequest(
  request: Request,
  config: BoundaryConfig,
  perform: (request: Request) => Promise<Response>,
): Promise<RequestOutcome> {
  const url = new URL(request.url)
  const requestClass = classifyUrl(url, config.modelEndpoints, config.allowHosts, config.tapeHosts)
  const tape = currentTape()
  if (!tape) {
    // An MCP client connecting before any tape began, in a run whose tapes replay: no tape can
    // answer it, and reaching the server would be a replay reaching the network.
    if (requestClass !== 'allowed' && replaysOutsideTapes()) {
      const mcp = await readMcpRequest(request, url)
      if (mcp) return { type: 'error', error: mcpOutsideTapeError(url.origin + url.pathname) }
    }
    const claiming = claimingTapeCount()
    if (passesThrough(requestClass) || claiming === 0) return { type: 'passthrough' }
    return { type: 'error', error: unattributed(request, claiming) }
  }
  if (tape.failOpen) return handleFailOpen(request, url, requestClass, tape, config, perform)
  return handleForTape(request, url, requestClass, tape, config, perform)
}

/**
 * A request of a run that serves real traffic (a run captured in a server): it is recorded as a
 * test's would be, and whatever keeps it from being recorded lets it pass for real and fails the
 * tape instead, whose owner then drops the recording. The app never sees an error of ours.
 */
async function handleFailOpen(
  request: Request,
  url: URL,
  requestClass: RequestClass,
  tape: Tape,
  config: BoundaryConfig,
  perform: (request: Request) => Promise<Response>,
): Promise<RequestOutcome> {
  let sent = false
  const sendOnce = (r: Request) => {
    sent = true
    return perform(r)
  }
  try {
    return await handleForTape(request, url, requestClass, tape, config, sendOnce)
  } catch (error) {
    tape.reportDivergence(unrecorded(request, error))
    // Not sent yet: letting it pass sends it once. (Once sent, it cannot be sent again.)
    return sent ? { type: 'error', error: error as Error } : { type: 'passthrough' }
  }
}

async function handleForTape(
  request: Request,
  url: URL,
  requestClass: RequestClass,
  tape: Tape,
  config: BoundaryConfig,
  perform: (request: Request) => Promise<Response>,
): Promise<RequestOutcome> {
  // MCP over streamable HTTP, wherever the server is (a loopback test server, a host that also
  // serves models), unless a wrapped MCP transport already tapes it (its traffic runs inside that
  // decision). A path a model API owns is a model request, and its body is not read twice.
  if (
    tape.action !== 'passthrough' &&
    requestClass !== 'allowed' &&
    (requestClass !== 'model' || !findCodec(request.method.toUpperCase(), url.pathname)) &&
    !isInsideDecision()
  ) {
    const mcp = await readMcpRequest(request, url)
    // A server's own stream is nothing a run decides; a test answers it, a served run needs it.
    if (mcp?.type === 'listen' && tape.failOpen) return { type: 'passthrough' }
    if (mcp) return handleMcpRequest(request, mcp, tape, config.timing, perform)
  }
  // A model call to a host that is not a model endpoint would pass through untaped (loopback) or
  // be taped as plain HTTP: refused, recording or replaying. What a tool does is its own outcome.
  if (
    tape.action !== 'passthrough' &&
    (requestClass === 'loopback' || requestClass === 'external') &&
    !isInsideDecision()
  ) {
    const lookalike = await modelLookalike(request, url)
    if (lookalike) {
      const error = undeclaredModelError(url, lookalike, tape, requestClass === 'loopback')
      tape.reportDivergence(error)
      // A served run goes on as it would without agent-tape; its recording is dropped.
      if (tape.failOpen) return { type: 'passthrough' }
      return { type: 'respond', response: errorAnswer(lookalike, error.message, 'undeclared-model') }
    }
  }
  if (passesThrough(requestClass) || tape.action === 'passthrough') return { type: 'passthrough' }
  // A recording never sends a placeholder key: the test is told which key it needs.
  if (tape.action === 'record' && !isInsideDecision()) {
    const refused = refuseKeylessRecording(request, url, tape)
    if (refused) return refused
  }
  // A replayed request is answered from the tape and never sent, so its body needs no copy.
  const body = await readRequestBytes(request, tape.action === 'replay')
  const parts = readRequestParts(request, url, requestClass, body)
  // Computed only when the request's fingerprint does not answer it (see TapeInternals.beginRequest).
  let decision: RequestDecision | undefined
  // What reading the request as decision input threw, told apart from what the tape throws.
  let unreadable: { error: unknown } | undefined
  let begun: ReturnType<Tape['begin']>
  try {
    begun = tapeInternals(tape).beginRequest({
      kind: expectedKind(parts),
      head: wireHead(parts),
      body,
      decide: () => {
        try {
          decision = decideRequest(parts)
        } catch (error) {
          unreadable = { error }
          throw error
        }
        return decision
      },
    })
  } catch (error) {
    if (tape.failOpen) throw error
    if (unreadable?.error === error) {
      if (!isStackOverflow(error)) throw error
      const refused = deepInputError(requestClass === 'model' ? 'llm' : 'http', error)
      tape.reportDivergence(refused)
      return { type: 'error', error: refused }
    }
    if (!isReplayMiss(error)) return { type: 'error', error: error as Error }
    if (!decision?.codec) return { type: 'error', error }
    return { type: 'respond', response: errorAnswer(decision.codec, error.message, 'replay-miss') }
  }
  if (begun.action === 'passthrough') return { type: 'passthrough' }
  if (begun.action === 'replay') {
    const record = begun.record
    // Refused before any client sees it: every client then fails with the same report.
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
    if (!isRecordedResponse(record.out)) {
      return { type: 'error', error: damagedResponse(tape, record.seq) }
    }
    if (speed > 0 && record.out.headersAt) await sleep(record.out.headersAt / speed)
    return { type: 'respond', response: buildReplayResponse(record.out, config.timing, request.signal) }
  }
  const codec = parts.codec
  const isLastEvent = codec?.isLastEvent ? (event: StreamEvent) => codec.isLastEvent!(event) : undefined
  const recording = await performAndRecord(begun, request, perform, isLastEvent)
  if ('error' in recording) return { type: 'error', error: recording.error }
  const { teed } = recording
  if (config.streamWhileRecording !== false) return { type: 'respond', response: teed.response }
  // The whole answer first, then the caller gets it as a replay would give it.
  void teed.response.body?.cancel()
  try {
    return { type: 'respond', response: buildReplayResponse(await teed.recorded, 'instant') }
  } catch (error) {
    return { type: 'error', error: error as Error }
  }
}

function unattributed(request: Request, active: number): AgentTapeError {
  return new AgentTapeError('ERR_TAPE_UNATTRIBUTED', {
    what: `Cannot attribute ${request.method} ${redactUrl(request.url)} to a tape`,
    why: `${active} tape${active === 1 ? ' is' : 's are'} running, but this request was made outside the async context of any of them (from a timer or promise started outside the test, or from a shared client's background work), and guessing could record it into the wrong cassette`,
    fix: 'Make the request from inside the tape test (or from code it awaits), or run it inside runWithTape(tape, fn)',
  })
}

/** Why a request of a run that fails open went unrecorded (see {@link handleFailOpen}). */
function unrecorded(request: Request, error: unknown): AgentTapeError {
  if (isAgentTapeError(error)) return error
  return new AgentTapeError('ERR_TAPE_USAGE', {
    what: `Cannot record ${request.method} ${redactUrl(request.url)}`,
    why: error instanceof Error ? error.message : String(error),
    fix: 'The request went out unrecorded and the recording of its run was dropped; report this with the request if it keeps happening',
  })
}

function damagedResponse(tape: Tape, seq: number): AgentTapeError {
  return new AgentTapeError('ERR_TAPE_CORRUPT', {
    what: `Cannot replay decision #${seq} of ${tape.cassettePath}`,
    why: 'its "out" is not a recorded HTTP response (it needs a numeric "status" and a "headers" object)',
    fix: `Restore the cassette from version control, or re-record this test: ${tape.rerecordCommand}`,
  })
}
