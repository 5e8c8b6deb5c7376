import { AgentTapeError, type Tape } from '@agent-tape/core/internal'
import { findCodec } from './codecs/index.js'
import { isLoopbackHost } from './endpoints.js'
import { errorAnswer } from './error-answer.js'
import type { RequestOutcome } from './handle-request.js'
import { placeholderIn } from './replay-keys.js'

/**
 * A request a recording would send with a placeholder for its API key: a run that may replay
 * gives unset key variables placeholders before the test files load (SDK clients read them at
 * import time), and a tape of that run that has no cassette yet records. The request is not
 * sent, the tape fails naming the variable and the test, and its recording is not written (it
 * would lack the decision). A model request is answered in the provider's error shape, so the
 * SDK stops at once. `undefined` for a request that carries no placeholder, and for one to a
 * loopback host: a local model or a test server needs no key, and nothing leaves the machine.
 */
export function refuseKeylessRecording(request: Request, url: URL, tape: Tape): RequestOutcome | undefined {
  if (isLoopbackHost(url.hostname)) return undefined
  const variable = placeholderIn(request)
  if (!variable) return undefined
  const error = new AgentTapeError('ERR_TAPE_NO_KEY', {
    what: `Cannot record test "${tape.id}": its request to ${url.host} would carry no API key`,
    why: `${variable} is not set, so agent-tape gave it a placeholder for the tapes that replay from their cassettes, and this tape records (${recordsBecause(tape)}); the request was not sent, and nothing is written`,
    fix: `Set ${variable} and run this test again to record it: ${tape.rerecordCommand}`,
  })
  tape.refuseRecording(error)
  const codec = findCodec(request.method, url.pathname)
  if (!codec) return { type: 'error', error }
  return { type: 'respond', response: errorAnswer(codec, error.message, 'no-key') }
}

/** Why the tape records the request. */
function recordsBecause(tape: Tape): string {
  if (tape.mode === 'resume') return `the run no longer matches ${tape.cassettePath} from this request on`
  if (tape.mode === 'update') return `mode "update" re-records ${tape.cassettePath}`
  return `${tape.cassettePath} does not exist yet`
}
