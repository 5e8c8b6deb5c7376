import {
  AgentTapeError,
  claimingTapeCount,
  mcpOutsideTapeError,
  redactUrl,
  replaysOutsideTapes,
} from '@agent-tape/core/internal'
import { passesThrough, type RequestClass } from '../endpoints.js'
import type { RequestOutcome } from '../handle-request.js'
import { readMcpRequest } from '../mcp-http.js'

/**
 * A request made outside every tape's async context. It passes, unless a tape that claims such
 * requests is running (a test's tape: guessing could record it into the wrong cassette), or it is
 * an MCP client connecting before any tape began in a run whose tapes replay (no tape can answer
 * it, and reaching the server would be a replay reaching the network).
 */
export async function answerOutsideTapes(
  request: Request,
  url: URL,
  requestClass: RequestClass,
): Promise<RequestOutcome> {
  if (requestClass !== 'allowed' && replaysOutsideTapes()) {
    const mcp = await readMcpRequest(request, url)
    if (mcp) return { type: 'error', error: mcpOutsideTapeError(url.origin + url.pathname) }
  }
  const claiming = claimingTapeCount()
  if (passesThrough(requestClass) || claiming === 0) return { type: 'passthrough' }
  return { type: 'error', error: unattributed(request, claiming) }
}

function unattributed(request: Request, active: number): AgentTapeError {
  return new AgentTapeError('ERR_TAPE_UNATTRIBUTED', {
    what: `Cannot attribute ${request.method} ${redactUrl(request.url)} to a tape`,
    why: `${active} tape${active === 1 ? ' is' : 's are'} running, but this request was made outside the async context of any of them (from a timer or promise started outside the test, or from a shared client's background work), and guessing could record it into the wrong cassette`,
    fix: 'Make the request from inside the tape test (or from code it awaits), or run it inside runWithTape(tape, fn)',
  })
}
