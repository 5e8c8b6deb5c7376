import { AgentTapeError, type Tape } from '@agent-tape/core/internal'
import type { ReplayTiming } from '../replay-timing.js'
import type { PairedSocket, UpgradeHead } from './socket-pair.js'
import { printableUrl, type UpgradeCall } from './upgrade-request.js'

/** The decisions of a WebSocket session are of this kind (see `openInput` and `clientInput`). */
export const SESSION_KIND = 'websocket'

/** A frame larger than this is refused: a cassette is read by people and diffed line by line. */
export const MAX_FRAME_BYTES = 4 * 1024 * 1024

/** What a session reads of the boundary's settings. */
export interface SessionSettings {
  timing: ReplayTiming
}

/** The server end of a session, once the client's upgrade request has been read from it. */
export interface SessionEnds {
  tape: Tape
  call: UpgradeCall
  /** The client's end: destroyed with an error, it fails the client's request as a refused connection would. */
  client: PairedSocket
  server: PairedSocket
  head: UpgradeHead
  rest: Buffer
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
