import { AgentTapeError, SESSION_KIND, type Tape } from '@agent-tape/core/internal'
import type { WebSocket } from 'ws'
import type { ReplayTiming } from '../replay-timing.js'
import { printableUrl, type UpgradeCall } from './upgrade-request.js'

/** The decisions of a WebSocket session are of this kind (see `openInput` and `clientInput`). */
export { SESSION_KIND }

/** A frame larger than this is refused: a cassette is read by people and diffed line by line. */
export const MAX_FRAME_BYTES = 4 * 1024 * 1024

/** What a session reads of the boundary's settings. */
export interface SessionSettings {
  timing: ReplayTiming
}

/**
 * How the client's handshake is answered, whichever way it came (an upgrade request over
 * `node:http(s)`, or a dispatch of undici's): the session opened with the protocol the server
 * chose, an HTTP response instead, or the failure of a connection that could not be made.
 */
export interface Handshake {
  /** Opens the session; `onOpen` gets the server side of it before any client frame is read. */
  accept(protocol: string | undefined, onOpen: (ws: WebSocket) => void): void
  refuse(status: number, headers: Record<string, string>, body: string): void
  fail(error: Error): void
}

/** A session's tape, the client's upgrade, and how to answer it. */
export interface SessionEnds {
  tape: Tape
  call: UpgradeCall
  handshake: Handshake
}

/** The refusal of a frame over {@link MAX_FRAME_BYTES}, by whom it was sent. */
export function frameTooLarge(call: UpgradeCall, bytes: number, from: 'client' | 'server'): AgentTapeError {
  const mb = (n: number) => `${(n / 1024 / 1024).toFixed(1)} MB`
  return new AgentTapeError('ERR_TAPE_NETWORK', {
    what: `Refused a WebSocket frame of ${mb(bytes)} from the ${from} of ${printableUrl(call)}`,
    why: `a cassette keeps frames up to ${mb(MAX_FRAME_BYTES)}, and the session was closed rather than recorded without it`,
    fix: 'Send large payloads in smaller messages (audio in chunks of a fraction of a second, as the realtime APIs expect), or leave this session out of the tape by adding its host to allowHosts',
  })
}
