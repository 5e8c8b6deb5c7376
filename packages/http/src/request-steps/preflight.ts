import { isInsideDecision } from '@agent-tape/core/internal'
import { findCodec } from '../codecs/index.js'
import { passesThrough } from '../endpoints.js'
import { errorAnswer } from '../error-answer.js'
import type { RequestOutcome } from '../handle-request.js'
import { refuseKeylessRecording } from '../keyless-recording.js'
import { handleMcpRequest, readMcpRequest } from '../mcp-http.js'
import { modelLookalike, undeclaredModelError } from '../unconfigured-model.js'
import type { TapedRequest } from './taped-request.js'

/**
 * What is settled before a request becomes a decision of the tape: MCP over streamable HTTP, a
 * model call to a host nobody declared, the requests that pass, a recording that would send a
 * placeholder key. `undefined` when the request goes on to be decided.
 */
export async function preflight(taped: TapedRequest): Promise<RequestOutcome | undefined> {
  const { request, url, requestClass, tape } = taped
  if (tape.action === 'passthrough') return { type: 'passthrough' }
  // What the function behind a decision does is that decision's outcome, not one of its own.
  const deciding = !isInsideDecision()
  if (deciding) {
    const settled = (await mcpAnswer(taped)) ?? (await lookalikeAnswer(taped))
    if (settled) return settled
  }
  if (passesThrough(requestClass)) return { type: 'passthrough' }
  // A recording never sends a placeholder key: the test is told which key it needs. A tape that
  // resumes knows only once the request is keyed whether it replays (see `handle-request.ts`).
  if (tape.action === 'record' && deciding && tape.mode !== 'resume')
    return refuseKeylessRecording(request, url, tape)
  return undefined
}

/**
 * MCP over streamable HTTP, wherever the server is (a loopback test server, a host that also
 * serves models), unless a wrapped MCP transport already tapes it (its traffic runs inside that
 * decision). A path a model API owns is a model request, and its body is not read twice.
 */
async function mcpAnswer(taped: TapedRequest): Promise<RequestOutcome | undefined> {
  const { request, url, requestClass, tape, config, perform } = taped
  if (requestClass === 'allowed') return undefined
  if (requestClass === 'model' && findCodec(request.method.toUpperCase(), url.pathname)) return undefined
  const mcp = await readMcpRequest(request, url)
  if (!mcp) return undefined
  // A server's own stream is nothing a run decides; a test answers it, a served run needs it.
  if (mcp.type === 'listen' && tape.failOpen) return { type: 'passthrough' }
  return handleMcpRequest(request, mcp, tape, config.timing, perform)
}

/**
 * A model call to a host that is not a model endpoint would pass through untaped (loopback) or
 * be taped as plain HTTP: refused, recording or replaying. What a tool does is its own outcome.
 */
async function lookalikeAnswer(taped: TapedRequest): Promise<RequestOutcome | undefined> {
  const { request, url, requestClass, tape } = taped
  if (requestClass !== 'loopback' && requestClass !== 'external') return undefined
  const lookalike = await modelLookalike(request, url)
  if (!lookalike) return undefined
  const error = undeclaredModelError(url, lookalike, tape, requestClass === 'loopback')
  tape.reportDivergence(error)
  // A served run goes on as it would without agent-tape; its recording is dropped.
  if (tape.failOpen) return { type: 'passthrough' }
  return { type: 'respond', response: errorAnswer(lookalike, error.message, 'undeclared-model') }
}
