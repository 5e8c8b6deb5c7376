import type { IncomingMessage } from 'node:http'
import { onTapeFinish } from '@agent-tape/core/context'
import { type BegunDecision, isAgentTapeError, toRecordedError } from '@agent-tape/core/internal'
import type { WebSocket } from 'ws'
import { asRecord } from '../codecs/read.js'
import { performingForTape } from '../network/performing.js'
import { frameTooLarge, MAX_FRAME_BYTES, SESSION_KIND, type SessionEnds } from './session-ends.js'
import {
  clientInput,
  type FramesOutput,
  frameOf,
  messageOptions,
  type OpenOutput,
  parseObject,
  type RecordedFrame,
} from './session-frames.js'
import type { UpgradeCall } from './upgrade-request.js'
import { closeAs, wsModule } from './ws-module.js'

type Recording = Extract<BegunDecision, { action: 'record' }>

/** The decision being recorded: the server's frames since it began go to it. */
interface Current {
  begun: Recording
  started: number
  frames: RecordedFrame[]
  /** The opening's answer, the first decision's. */
  open?: { protocol?: string }
}

/**
 * Records a session: opens it upstream for real (past the guards, as the boundary's own
 * connection), answers the client's upgrade as the server answered it, and relays every frame
 * both ways. Each client message begins a decision, which keeps the server's frames until the
 * next one (the first, the opening's, those before any); the last ends with the session.
 */
export function recordSession(ends: SessionEnds, opening: Recording): void {
  const { call, handshake, tape } = ends
  const { WebSocket } = wsModule()
  const started = Date.now()
  const upstream = performingForTape(
    () =>
      new WebSocket(call.url, offered(call), {
        ...connectionOptions(call),
        headers: forwardedHeaders(call.headers),
        perMessageDeflate: false,
      }),
  )
  let current: Current | undefined = { begun: opening, started, frames: [], open: {} }
  const model = new SessionModel(call)
  const finish = () => {
    const done = current
    current = undefined
    if (!done) return
    const named = model.name === undefined ? {} : { model: model.name }
    const out: OpenOutput | FramesOutput = done.open
      ? {
          status: 101,
          ...(done.open.protocol ? { protocol: done.open.protocol } : {}),
          frames: done.frames,
          ...named,
        }
      : { frames: done.frames, ...named }
    done.begun.complete({ out }, Date.now() - done.started)
  }
  let local: WebSocket | undefined
  // A test that ends with its session open: what the server sent so far is its recording.
  const stopWatching = onTapeFinish((finishing) => {
    if (finishing !== tape) return
    finish()
    local?.terminate()
    upstream.terminate()
  })
  upstream.once('unexpected-response', (_request, response: IncomingMessage) => {
    stopWatching()
    const chunks: Buffer[] = []
    response.on('data', (chunk: Buffer) => chunks.push(chunk))
    response.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8')
      const headers = { 'content-type': String(response.headers['content-type'] ?? 'text/plain') }
      const status = response.statusCode ?? 500
      opening.complete({ out: { status, headers, body } }, Date.now() - started)
      current = undefined
      handshake.refuse(status, headers, body)
    })
  })
  upstream.on('error', (error) => {
    if (current?.open && upstream.readyState !== upstream.OPEN) {
      stopWatching()
      // Never opened: the client's request fails as it would have, with the error recorded.
      current = undefined
      opening.complete({ err: toRecordedError(error) }, Date.now() - started)
      handshake.fail(error)
    }
  })
  upstream.once('open', () => {
    if (current?.open && upstream.protocol) current.open.protocol = upstream.protocol
    handshake.accept(upstream.protocol || undefined, (ws) => {
      local = ws
      relay(ws, upstream)
    })
  })
  const relay = (local: WebSocket, remote: WebSocket) => {
    const refuse = (bytes: number, from: 'client' | 'server') => {
      tape.reportDivergence(frameTooLarge(call, bytes, from))
      closeAs(local, 1009, 'agent-tape: frame too large for the cassette')
      closeAs(remote, 1009, 'frame too large')
    }
    remote.on('message', (data: Buffer, isBinary: boolean) => {
      if (data.length > MAX_FRAME_BYTES) return refuse(data.length, 'server')
      if (current) current.frames.push(frameOf(data, isBinary, Date.now() - current.started))
      model.fromServer(data)
      local.send(data, { binary: isBinary })
    })
    local.on('message', (data: Buffer, isBinary: boolean) => {
      if (data.length > MAX_FRAME_BYTES) return refuse(data.length, 'client')
      finish()
      let begun: BegunDecision
      const input = clientInput(call.codec, data, isBinary)
      model.fromClient(input)
      try {
        begun = tape.begin(SESSION_KIND, input, messageOptions(call.codec, input))
      } catch (error) {
        closeAs(remote, 1001, 'going away')
        if (isAgentTapeError(error) && error.code === 'ERR_TAPE_BUDGET') {
          // A turn over a drift run's budget is never sent: the client hears it in the API's own
          // error event, where there is one, as a model request over HTTP hears it in the
          // provider's error shape. The tape has the refusal.
          const frame = call.codec.missFrame(error.message, error.code)
          if (frame) local.send(JSON.stringify(frame))
          closeAs(local, 1011, "agent-tape: not sent, over the drift run's budget (see the test failure)")
          return
        }
        // Asked after the test ended, or an input that cannot be keyed: the tape has the error.
        if (isAgentTapeError(error)) tape.reportDivergence(error)
        closeAs(local, 1011, 'agent-tape: this message cannot be recorded (see the test failure)')
        return
      }
      if (begun.action === 'record') current = { begun, started: Date.now(), frames: [] }
      remote.send(data, { binary: isBinary })
    })
    remote.on('close', (code: number, reason: Buffer) => {
      current?.frames.push({ at: Date.now() - current.started, close: { code, reason: reason.toString() } })
      finish()
      if (local.readyState === local.OPEN) closeAs(local, code, reason.toString())
    })
    local.on('close', (code: number, reason: Buffer) => {
      stopWatching()
      finish()
      if (remote.readyState === remote.OPEN) closeAs(remote, code, reason.toString())
    })
  }
}

/**
 * The model a recorded session runs, as its URL, the client's messages and the server's name it
 * (the server's, the one that answers, once it names one): kept on each decision, whose tokens
 * are priced by it. A server frame is read only when it holds the word `"model"`, as most are
 * audio.
 */
class SessionModel {
  name: string | undefined
  private answered = false

  constructor(private readonly call: UpgradeCall) {
    this.name = call.codec.modelOfUrl(call.url)
  }

  fromClient(input: unknown): void {
    if (this.answered) return
    this.name = this.call.codec.modelOf(asRecord(asRecord(input).message)) ?? this.name
  }

  fromServer(data: Buffer): void {
    if (!data.includes('"model"')) return
    const message = parseObject(data.toString('utf8'))
    const named = message && this.call.codec.modelOf(message)
    if (!named) return
    this.name = named
    this.answered = true
  }
}

/** The subprotocols the client offered, those with credentials included (the server needs them). */
function offered(call: UpgradeCall): string[] {
  const header = call.headers['sec-websocket-protocol']
  return header
    ? header
        .split(',')
        .map((p) => p.trim())
        .filter((p) => p !== '')
    : []
}

/** The handshake's own headers, which the upstream client writes again. */
const HANDSHAKE_HEADERS = new Set([
  'host',
  'connection',
  'upgrade',
  'sec-websocket-key',
  'sec-websocket-version',
  'sec-websocket-extensions',
  'sec-websocket-protocol',
])

function forwardedHeaders(headers: Record<string, string>): Record<string, string> {
  return Object.fromEntries(Object.entries(headers).filter(([name]) => !HANDSHAKE_HEADERS.has(name)))
}

/** What of the client's options reaches the server the same way: TLS trust, an agent (a proxy), timeouts. */
const CONNECTION_OPTIONS = [
  'agent',
  'ca',
  'cert',
  'key',
  'pfx',
  'passphrase',
  'rejectUnauthorized',
  'servername',
  'checkServerIdentity',
  'family',
  'localAddress',
  'lookup',
  'timeout',
  'maxPayload',
]

function connectionOptions(call: UpgradeCall): Record<string, unknown> {
  const options: Record<string, unknown> = {}
  for (const name of CONNECTION_OPTIONS)
    if (call.options[name] !== undefined) options[name] = call.options[name]
  if (options.timeout !== undefined) options.handshakeTimeout = options.timeout
  delete options.timeout
  return options
}
