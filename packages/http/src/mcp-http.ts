import {
  AgentTapeError,
  answersFromCassette,
  isJsonRpcResponse,
  isReplayMiss,
  MCP_ERROR_NAME,
  type McpInput,
  type McpMessage,
  mcpInput,
  type Tape,
  tapeInternals,
  toReplayedError,
} from '@agent-tape/core/internal'
import { isLoopbackHost } from './endpoints.js'
import type { RequestOutcome } from './handle-request.js'
import { decodedResponse, performAndRecord, teeForRecording } from './record-response.js'
import { isRecordedResponse, type RecordedResponse } from './recorded-response.js'
import { replayRefusal } from './replay-checks.js'
import { buildReplayResponse, type ReplayTiming } from './replay-response.js'
import type { StreamEvent } from './streams/format.js'

/** An MCP streamable-HTTP request, told by its header or its `initialize` body. */
export type McpHttpRequest =
  | { type: 'request'; id: string | number; input: McpInput }
  | { type: 'notification' }
  /** GET: the stream on which a server sends notifications of its own. */
  | { type: 'listen' }
  /** DELETE: the end of a session. */
  | { type: 'end' }

/**
 * Reads a request as MCP over streamable HTTP: one with the `mcp-protocol-version` header the
 * SDKs send after the handshake, or the `initialize` request itself. Undefined for anything
 * else, batches included (they are taped as other HTTP).
 */
export async function readMcpRequest(request: Request, url: URL): Promise<McpHttpRequest | undefined> {
  const versioned = request.headers.has('mcp-protocol-version')
  const method = request.method.toUpperCase()
  if (versioned && method === 'GET') return { type: 'listen' }
  if (versioned && method === 'DELETE') return { type: 'end' }
  if (method !== 'POST' || !/json/i.test(request.headers.get('content-type') ?? '')) return undefined
  let body: McpMessage
  try {
    body = JSON.parse(await request.clone().text()) as McpMessage
  } catch {
    return undefined
  }
  if (typeof body !== 'object' || body === null || Array.isArray(body) || body.jsonrpc !== '2.0')
    return undefined
  if (typeof body.method !== 'string' || (!versioned && body.method !== 'initialize')) return undefined
  if (body.id === undefined) return { type: 'notification' }
  // The server as the key names it: not a loopback port, which changes every run.
  const server = `${isLoopbackHost(url.hostname) ? 'loopback' : url.host}${url.pathname}`
  return { type: 'request', id: body.id, input: mcpInput(server, body.method, body.params) }
}

/**
 * Answers an MCP request from the tape: a decision of kind `mcp` keyed by server, method and
 * params (not the JSON-RPC id, not the session). Recording performs it and stores the response;
 * replay answers with the recorded response under the caller's id; `live-tools` performs every
 * request for real and compares each `tools/call` result with the recording. The listen stream
 * is answered 405 (as by a server without one) and notifications 202, with no decision.
 */
export async function handleMcpRequest(
  taken: Request,
  mcp: McpHttpRequest,
  tape: Tape,
  timing: ReplayTiming,
  perform: (request: Request) => Promise<Response>,
): Promise<RequestOutcome> {
  const live = tape.action === 'record' || tape.mode === 'live-tools'
  // What goes out for real goes out in a live session, not in one a replay answered.
  const request = live ? await inLiveSessionOf(taken, perform) : taken
  if (mcp.type === 'listen') return { type: 'respond', response: new Response(null, { status: 405 }) }
  if (mcp.type !== 'request') {
    if (live) return { type: 'respond', response: decodedResponse(await perform(request)) }
    return { type: 'respond', response: new Response(null, { status: mcp.type === 'end' ? 200 : 202 }) }
  }
  let begun: ReturnType<Tape['begin']>
  try {
    begun = tape.begin('mcp', mcp.input)
  } catch (error) {
    // A run that fails open lets it pass (see handleFailOpen).
    if (tape.failOpen) throw error
    if (!isReplayMiss(error)) return { type: 'error', error: error as Error }
    // Answered in MCP's own error shape: the client throws it with the report.
    const body = { jsonrpc: '2.0', id: mcp.id, error: { code: -32603, message: error.message } }
    return { type: 'respond', response: Response.json(body) }
  }
  if (begun.action === 'passthrough') return { type: 'passthrough' }
  if (begun.action === 'record') {
    const recording = await performAndRecord(begun, request, perform, answers(mcp.id))
    return 'error' in recording
      ? { type: 'error', error: recording.error }
      : { type: 'respond', response: recording.teed.response }
  }
  const record = begun.record
  const refusal = answersFromCassette(tape) ? replayRefusal(tape, record, timing) : undefined
  if (refusal) {
    tape.reportDivergence(refusal)
    return { type: 'error', error: refusal }
  }
  // The request failed while recording (the server was unreachable): it fails the same way.
  if (record.err && answersFromCassette(tape)) return { type: 'error', error: toReplayedError(record.err) }
  if (!isRecordedResponse(record.out)) {
    return { type: 'error', error: damaged(record.seq, tape.cassettePath) }
  }
  const recorded = withJsonRpcId(record.out, mcp.id)
  if (answersFromCassette(tape)) {
    if (mcp.input.method === 'initialize') await rememberReplayedSession(request, recorded)
    return { type: 'respond', response: buildReplayResponse(recorded, timing) }
  }
  const response = decodedResponse(await perform(request))
  if (mcp.input.method !== 'tools/call') return { type: 'respond', response }
  // live-tools: the tool's live result against the recorded one; the client goes on with the
  // recorded answer, as the model decisions after it were recorded with it.
  const outcome = jsonRpcOutcome(await responseAsRecorded(response, mcp.id))
  // Compared as results, not as HTTP responses (whose session ids and framing differ).
  const was = jsonRpcOutcome(record.out)
  const asResult = was.error
    ? { ...record, out: undefined, err: { name: MCP_ERROR_NAME, message: was.error.message ?? '' } }
    : { ...record, out: was.result }
  await tapeInternals(tape).checkLive(asResult, () => {
    if (outcome.error) throw Object.assign(new Error(outcome.error.message ?? ''), { name: MCP_ERROR_NAME })
    return outcome.result
  })
  return { type: 'respond', response: buildReplayResponse(inLiveSession(recorded, response), 'instant') }
}

/**
 * The recorded answer in the live response's session. The client adopts the session id of every
 * response: the recording's belongs to a server process that may be gone, and would make the
 * client's next request fail on a stateful server (`No valid session ID provided`).
 */
function inLiveSession(recorded: RecordedResponse, live: Response): RecordedResponse {
  const { [SESSION_HEADER]: _, ...headers } = recorded.headers
  const session = live.headers.get(SESSION_HEADER)
  return { ...recorded, headers: session === null ? headers : { ...headers, [SESSION_HEADER]: session } }
}

const SESSION_HEADER = 'mcp-session-id'

/** A session whose `initialize` a replay answered: the handshake to make for real, once, if a request of it must go out. */
interface ReplayedSession {
  url: string
  headers: [string, string][]
  body: string
  /** The live session the handshake opened (undefined: the server gave none). */
  live?: Promise<string | undefined>
}

/** Recorded session id → its handshake, for every `initialize` a replay answered in this process. */
const replayedSessions = new Map<string, ReplayedSession>()

/**
 * Keeps the handshake of a session a replay opened (a setup tape that replayed, decision 0039):
 * the client now sends the recorded session id, which no live server knows.
 */
async function rememberReplayedSession(request: Request, recorded: RecordedResponse): Promise<void> {
  const session = recorded.headers[SESSION_HEADER]
  if (typeof session !== 'string' || replayedSessions.has(session)) return
  const body = await request.clone().text()
  replayedSessions.set(session, { url: request.url, headers: [...request.headers], body })
}

/**
 * The request in a live session: one that carries a session id a replay answered (a test that
 * records after its setup replayed) opens the session for real first, with the recorded
 * handshake's `initialize` and `notifications/initialized` (their answers go to no one: the
 * client has the recorded ones), once per session, and goes out with the live session id. The
 * client adopts the id of the response, so its next requests carry it themselves.
 */
async function inLiveSessionOf(
  request: Request,
  perform: (request: Request) => Promise<Response>,
): Promise<Request> {
  const session = request.headers.get(SESSION_HEADER)
  const replayed = session === null ? undefined : replayedSessions.get(session)
  if (!replayed) return request
  replayed.live ??= openLiveSession(replayed, request.headers.get('mcp-protocol-version'), perform)
  const live = await replayed.live
  if (live === undefined) return request
  const headers = new Headers(request.headers)
  headers.set(SESSION_HEADER, live)
  const body = request.method === 'GET' || request.method === 'HEAD' ? undefined : await request.text()
  return new Request(request.url, { method: request.method, headers, body, signal: request.signal })
}

async function openLiveSession(
  replayed: ReplayedSession,
  protocolVersion: string | null,
  perform: (request: Request) => Promise<Response>,
): Promise<string | undefined> {
  const init = { method: 'POST', headers: replayed.headers, body: replayed.body }
  const answer = await perform(new Request(replayed.url, init))
  const session = answer.headers.get(SESSION_HEADER) ?? undefined
  await answer.body?.cancel()
  if (session === undefined) return undefined
  const headers = new Headers(replayed.headers)
  headers.set(SESSION_HEADER, session)
  if (protocolVersion) headers.set('mcp-protocol-version', protocolVersion)
  const initialized = JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' })
  const notified = await perform(new Request(replayed.url, { method: 'POST', headers, body: initialized }))
  await notified.body?.cancel()
  return session
}

/** The JSON-RPC result or error a recorded MCP response carries (a JSON body or a stream event). */
export function jsonRpcOutcome(recorded: RecordedResponse): {
  result?: unknown
  error?: { message?: string }
} {
  const body = recorded.body
  const messages: unknown[] = !body
    ? []
    : 'json' in body
      ? [body.json]
      : 'sse' in body
        ? body.sse.map((e) => e.json)
        : []
  for (const message of messages) {
    if (isJsonRpcResponse(message))
      return message.error ? { error: message.error } : { result: message.result }
  }
  return {}
}

/** The recorded response, answering the caller's JSON-RPC id. */
function withJsonRpcId(recorded: RecordedResponse, id: string | number): RecordedResponse {
  const answer = (value: unknown) => (isJsonRpcResponse(value) ? { ...value, id } : value)
  const body = recorded.body
  if (!body) return recorded
  if ('json' in body) return { ...recorded, body: { json: answer(body.json) } }
  if ('sse' in body) {
    return {
      ...recorded,
      body: { ...body, sse: body.sse.map((e) => ('json' in e ? { ...e, json: answer(e.json) } : e)) },
    }
  }
  return recorded
}

async function responseAsRecorded(response: Response, id: string | number): Promise<RecordedResponse> {
  const teed = teeForRecording(response, performance.now(), { isLastEvent: answers(id) })
  void teed.response.body?.cancel()
  return teed.recorded
}

/**
 * Whether a streamed event is the response to request `id`: an MCP request's stream carries its
 * notifications first and ends with its response, and a client may close the moment it has it.
 */
function answers(id: string | number): (event: StreamEvent) => boolean {
  return ({ data }) => isJsonRpcResponse(data) && data.id === id
}

function damaged(seq: number, cassettePath: string): AgentTapeError {
  return new AgentTapeError('ERR_TAPE_CORRUPT', {
    what: `Decision #${seq} of ${cassettePath} is not a recorded MCP response`,
    why: 'its output lacks the status and headers a response has',
    fix: 'Restore the cassette from version control, or re-record the test',
  })
}
