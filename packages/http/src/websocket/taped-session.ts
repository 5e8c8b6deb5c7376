import type { ClientRequest } from 'node:http'
import { onTapeFinish } from '@agent-tape/core/context'
import {
  AgentTapeError,
  type BegunDecision,
  isAgentTapeError,
  type Tape,
  toReplayedError,
} from '@agent-tape/core/internal'
import type { WebSocket } from 'ws'
import { replaySpeed, sleep } from '../replay-timing.js'
import { recordSession } from './record-session.js'
import { type Handshake, SESSION_KIND, type SessionEnds, type SessionSettings } from './session-ends.js'
import {
  clientInput,
  framesOf,
  messageOptions,
  type OpenOutput,
  type RecordedFrame,
} from './session-frames.js'
import { readUpgradeHead, socketPair } from './socket-pair.js'
import { openInput, printableUrl, type RequestFunction, type UpgradeCall } from './upgrade-request.js'
import { acceptUpgrade, closeAs, refuseUpgrade } from './ws-module.js'

/**
 * A WebSocket session of `tape`, from `node:http(s)` (the `ws` package): the client's upgrade
 * request is made over an in-memory socket, whose other end this boundary serves with
 * server-side framing (see {@link serveSession}).
 */
export function openTapedSession(
  tape: Tape,
  call: UpgradeCall,
  request: RequestFunction,
  settings: SessionSettings,
): ClientRequest {
  const [client, server] = socketPair(call.url.protocol === 'wss:')
  const { createConnection: _own, agent: _agent, ...options } = call.options
  // Made as the client made it, over the in-memory socket instead of a connection (no agent).
  const made = request(
    ...(call.given === undefined ? [] : [call.given]),
    { ...options, createConnection: () => client },
    ...(call.callback ? [call.callback] : []),
  )
  void readUpgradeHead(server).then((read) => {
    if (!read) return
    const handshake: Handshake = {
      accept: (protocol, onOpen) => acceptUpgrade(server, read.head, read.rest, protocol, onOpen),
      refuse: (status, headers, body) => refuseUpgrade(server, status, headers, body),
      fail: (error) => client.destroy(error),
    }
    serveSession({ tape, call, handshake }, settings)
  })
  return made
}

/**
 * Serves a session whose handshake the client has sent: a replay answers it from the cassette
 * and opens no connection; a recording opens the session upstream and relays each frame,
 * recording the handshake and the server's frames after each client message.
 */
export function serveSession(ends: SessionEnds, settings: SessionSettings): void {
  const { tape, call, handshake } = ends
  let begun: BegunDecision
  try {
    begun = tape.begin(SESSION_KIND, openInput(call))
  } catch (error) {
    // A miss (the tape has it): the client's handshake fails as the server's refusal would.
    const message = isAgentTapeError(error) ? error.message : String(error)
    handshake.refuse(500, { 'content-type': 'text/plain' }, message)
    return
  }
  if (begun.action === 'replay')
    replaySession(ends, begun.record.out as OpenOutput | undefined, begun.record.err, settings)
  else if (begun.action === 'record') recordSession(ends, begun)
}

function replaySession(
  { tape, call, handshake }: SessionEnds,
  out: OpenOutput | undefined,
  err: { name: string; message: string; code?: string | number } | undefined,
  settings: SessionSettings,
): void {
  if (err || !out) {
    handshake.fail(toReplayedError(err ?? { name: 'Error', message: 'socket hang up' }))
    return
  }
  if (out.status !== 101) {
    const refused = out as Extract<OpenOutput, { body: string }>
    handshake.refuse(refused.status, refused.headers, refused.body)
    return
  }
  const opened = out as Extract<OpenOutput, { status: 101 }>
  handshake.accept(opened.protocol, (ws) => {
    // A test that ends with its session open: the session ends with it, as the recording did.
    const stopWatching = onTapeFinish((finishing) => {
      if (finishing === tape) ws.terminate()
    })
    ws.once('close', stopWatching)
    const speed = replaySpeed(settings.timing)
    let queue = play(ws, opened.frames, speed)
    ws.on('message', (data: Buffer, isBinary: boolean) => {
      let begun: BegunDecision
      try {
        const input = clientInput(call.codec, data, isBinary)
        begun = tape.begin(SESSION_KIND, input, messageOptions(call.codec, input))
      } catch (error) {
        queue = queue.then(() => refuseMessage(ws, call, error))
        return
      }
      if (begun.action === 'record') {
        // A run that records from its first miss (resume): this session has no server to ask.
        begun.complete({ out: { frames: [] } }, 0)
        const error = resumedSession(call)
        tape.refuseRecording(error)
        queue = queue.then(() => refuseMessage(ws, call, error))
        return
      }
      if (begun.action !== 'replay') return
      queue = queue.then(() => play(ws, framesOf(begun.record.out), speed))
    })
  })
}

/** Sends recorded frames in order, paced as recorded unless `speed` is 0 (instant). */
async function play(ws: WebSocket, frames: readonly RecordedFrame[], speed: number): Promise<void> {
  let last = 0
  for (const frame of frames) {
    if (speed > 0 && frame.at > last) await sleep((frame.at - last) / speed)
    last = frame.at
    if (ws.readyState !== ws.OPEN) return
    if ('text' in frame) ws.send(frame.text)
    else if ('binary' in frame) ws.send(Buffer.from(frame.binary, 'base64'), { binary: true })
    else closeAs(ws, frame.close.code, frame.close.reason)
  }
}

/**
 * A client message no recording answers: the API's error event, when it has one, tells the
 * client; the session then closes as a server's internal error (1011). The tape has the miss.
 */
function refuseMessage(ws: WebSocket, call: UpgradeCall, error: unknown): void {
  const message = isAgentTapeError(error) ? error.message : String(error)
  const frame = call.codec.missFrame(message, isAgentTapeError(error) ? error.code : 'ERR_TAPE_MISS')
  if (frame && ws.readyState === ws.OPEN) ws.send(JSON.stringify(frame))
  // A close reason is at most 123 bytes.
  closeAs(ws, 1011, 'agent-tape: no recording answers this message (see the test failure)')
}

/** A session replayed from its cassette whose run then records from a miss (resume): refused. */
function resumedSession(call: UpgradeCall): AgentTapeError {
  return new AgentTapeError('ERR_TAPE_USAGE', {
    what: `Cannot record the rest of the WebSocket session to ${printableUrl(call)} from its first changed message`,
    why: 'the session was opened from the cassette, so there is no server to send that message to, and a session cannot be resumed half-way',
    fix: 'Re-record the whole test (mode "update")',
  })
}
