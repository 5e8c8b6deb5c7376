import { readFileSync, rmSync } from 'node:fs'
import { createServer } from 'node:https'
import type { AddressInfo } from 'node:net'
import { type WebSocket, WebSocketServer } from 'ws'
import { makeCertificate } from './tls-server.js'

type Event = Record<string, unknown> & { type?: string }

export interface RealtimeServer {
  /** `https://127.0.0.1:<port>/v1`: the base URL an SDK client is given. */
  baseURL: string
  /** The server's self-signed certificate (PEM text), for the client's `ca`. */
  ca: string
  /** TCP connections accepted so far: 0 more proves a replay reached nothing. */
  readonly connections: number
  /** The handshake headers of each session, in order. */
  readonly handshakes: { url: string; headers: Record<string, string | string[] | undefined> }[]
  close(): Promise<void>
}

/** Milliseconds of 24 kHz 16-bit mono audio in one `response.output_audio.delta` of the fake. */
export const AUDIO_DELTA_MS = 100
/** The key the fake refuses (401 at the handshake). */
export const REJECTED_KEY = `sk-proj-${'Rejected'.repeat(5)}`
/** How long the fake takes to confirm instructions of `Take your time.`. */
export const SLOW_MS = 300
/** Bytes of 100 ms of 24 kHz 16-bit mono PCM. */
export const AUDIO_CHUNK_BYTES = 4800

/**
 * A loopback server that speaks OpenAI's Realtime API over TLS (the SDK always opens `wss:`), as
 * its documented events go: `session.created` on connect, `session.updated`,
 * `conversation.item.created`, `input_audio_buffer.committed`; a `response.create` is answered
 * with a function call (`response.function_call_arguments.done`) while the conversation has a
 * user question and no tool output, with text deltas (`response.output_text.delta`) after a tool
 * output, and with audio deltas (as many 100 ms chunks as the client appended) when the session's
 * output is audio. Instructions of `Take your time.` are confirmed {@link SLOW_MS} later, and
 * {@link REJECTED_KEY} gets a 401 at the handshake. A user message `break` gets an `error` event
 * and a close with 1011; a response to a user message `cut` drops the connection after its
 * first text delta; a binary frame is sent back reversed.
 */
export async function startRealtimeServer(): Promise<RealtimeServer> {
  const { dir, key, certFile } = makeCertificate()
  const ca = readFileSync(certFile, 'utf8')
  let connections = 0
  const handshakes: RealtimeServer['handshakes'] = []
  const server = createServer({ key: readFileSync(key), cert: readFileSync(certFile) })
  server.on('connection', () => {
    connections += 1
  })
  const wss = new WebSocketServer({
    server,
    // A key the fake does not know is refused at the handshake, as the API refuses it.
    verifyClient: ({ req }, done) =>
      req.headers.authorization === `Bearer ${REJECTED_KEY}`
        ? done(false, 401, 'Unauthorized', { 'content-type': 'application/json' })
        : done(true),
  })
  wss.on('connection', (ws, req) => {
    handshakes.push({ url: req.url ?? '', headers: req.headers })
    const model = new URL(req.url ?? '/', 'https://x').searchParams.get('model')
    serveSession(ws, String(model))
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  return {
    baseURL: `https://127.0.0.1:${port}/v1`,
    ca,
    get connections() {
      return connections
    },
    handshakes,
    close: () =>
      new Promise<void>((resolve) => {
        for (const client of wss.clients) client.terminate()
        server.closeAllConnections()
        server.close(() => {
          rmSync(dir, { recursive: true, force: true })
          resolve()
        })
      }),
  }
}

function serveSession(ws: WebSocket, model: string): void {
  let n = 0
  const send = (event: Event) => ws.send(JSON.stringify({ event_id: `event_${++n}`, ...event }))
  const session: Event = { id: 'sess_1', object: 'realtime.session', model, instructions: '', tools: [] }
  const items: Event[] = []
  let appendedChunks = 0
  send({ type: 'session.created', session })
  ws.on('message', (data: Buffer, isBinary: boolean) => {
    if (isBinary) return ws.send(Buffer.from(data).reverse(), { binary: true })
    const event = JSON.parse(data.toString()) as Event
    switch (event.type) {
      case 'session.update':
        Object.assign(session, event.session)
        if (session.instructions === 'Take your time.')
          return void setTimeout(() => send({ type: 'session.updated', session }), SLOW_MS)
        return send({ type: 'session.updated', session })
      case 'conversation.item.create': {
        const item = { id: `item_${items.length + 1}`, ...(event.item as Event) }
        if (textOf(item) === 'break') {
          send({
            type: 'error',
            error: { type: 'server_error', code: null, message: 'The server had an error.' },
          })
          return ws.close(1011, 'internal error')
        }
        items.push(item)
        return send({ type: 'conversation.item.created', item })
      }
      case 'input_audio_buffer.append':
        appendedChunks += 1
        return
      case 'input_audio_buffer.commit':
        items.push({
          id: `item_${items.length + 1}`,
          type: 'message',
          role: 'user',
          content: [{ type: 'input_audio' }],
        })
        return send({ type: 'input_audio_buffer.committed', item_id: `item_${items.length}` })
      case 'response.create':
        if (textOf(items.at(-1) ?? {}) === 'cut') return cut(ws, send, items)
        return respond(send, session, items, appendedChunks)
      default:
        return send({
          type: 'error',
          error: { type: 'invalid_request_error', message: `Unknown event ${event.type}` },
        })
    }
  })
}

/** Starts a response: `response.created`, and the response it announces. */
function created(send: (event: Event) => void, items: Event[]) {
  const response = {
    id: `resp_${items.length}`,
    object: 'realtime.response',
    status: 'in_progress',
    output: [],
  }
  send({ type: 'response.created', response })
  return response
}

function respond(send: (event: Event) => void, session: Event, items: Event[], audioChunks: number): void {
  const response = created(send, items)
  const modalities = session.output_modalities as string[] | undefined
  if (modalities?.includes('audio')) {
    for (let i = 0; i < audioChunks; i++) {
      const pcm = Buffer.alloc(AUDIO_CHUNK_BYTES, i % 256)
      send({ type: 'response.output_audio.delta', response_id: response.id, delta: pcm.toString('base64') })
    }
    send({
      type: 'response.output_audio_transcript.delta',
      response_id: response.id,
      delta: 'Here is your audio.',
    })
    send({ type: 'response.output_audio.done', response_id: response.id })
  } else if (!items.some((item) => item.type === 'function_call_output')) {
    const call = { call_id: 'call_1', name: 'get_weather', arguments: '{"city":"Paris"}' }
    send({ type: 'response.output_item.added', item: { type: 'function_call', ...call, arguments: '' } })
    send({ type: 'response.function_call_arguments.delta', call_id: call.call_id, delta: call.arguments })
    send({ type: 'response.function_call_arguments.done', ...call })
  } else {
    const output = String(items.findLast((item) => item.type === 'function_call_output')?.output)
    for (const delta of ['In Paris ', 'it is ', `${JSON.parse(output).temp} degrees.`])
      send({ type: 'response.output_text.delta', response_id: response.id, delta })
    send({ type: 'response.output_text.done', response_id: response.id })
  }
  send({
    type: 'response.done',
    response: { ...response, status: 'completed', usage: usageOf(modalities, audioChunks) },
  })
}

/**
 * A response's `usage` as the API reports it: 120 text tokens in and 30 out, and for a spoken
 * answer, the audio heard and said on top (one token per chunk of each), counted apart.
 */
function usageOf(modalities: string[] | undefined, audioChunks: number): Event {
  const audio = modalities?.includes('audio') ? audioChunks : 0
  return {
    input_tokens: 120 + audio,
    output_tokens: 30 + audio,
    total_tokens: 150 + 2 * audio,
    input_token_details: {
      text_tokens: 120,
      audio_tokens: audio,
      cached_tokens: 0,
      cached_tokens_details: { text_tokens: 0, audio_tokens: 0 },
    },
    output_token_details: { text_tokens: 30, audio_tokens: audio },
  }
}

/** The connection dropped mid-response: the first text delta, then no close frame. */
function cut(ws: WebSocket, send: (event: Event) => void, items: Event[]): void {
  const response = created(send, items)
  send({ type: 'response.output_text.delta', response_id: response.id, delta: 'In Paris ' })
  // Once the frames are written: what a dropped connection delivered before it dropped.
  ws.ping(undefined, undefined, () => ws.terminate())
}

function textOf(item: Event): string | undefined {
  const content = item.content as { text?: string }[] | undefined
  return content?.[0]?.text
}
