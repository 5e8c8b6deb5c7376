import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { type WebSocket, WebSocketServer } from 'ws'

type Message = Record<string, unknown>

export interface LiveServer {
  /** `http://127.0.0.1:<port>`: the base URL an SDK client is given (the SDK opens `ws:` from it). */
  url: string
  /** TCP connections accepted so far: 0 more proves a replay reached nothing. */
  readonly connections: number
  /** The URL and `setup` of each session, in order. */
  readonly sessions: { url: string; setup?: Message }[]
  close(): Promise<void>
}

/** Bytes of 100 ms of 24 kHz 16-bit mono PCM: one chunk of the fake's spoken answers. */
export const LIVE_AUDIO_CHUNK_BYTES = 4800

/**
 * A loopback server that speaks Gemini's Live API (`BidiGenerateContent`) as documented:
 * `setupComplete` after `setup`; a user turn (`clientContent`) is answered with a `toolCall`
 * while the session has a declared function and no tool response, a `toolResponse` with text in
 * `serverContent.modelTurn` parts and `turnComplete`; audio (`realtimeInput.audio`) ended by
 * `audioStreamEnd` is answered with as many audio chunks (`inlineData`) as were sent. A user
 * turn `break` closes the session with 1011 (the API has no error message), and a user turn
 * `cut` drops the connection after the first part of the answer.
 */
export async function startLiveServer(): Promise<LiveServer> {
  let connections = 0
  const sessions: LiveServer['sessions'] = []
  const server = createServer((_req, res) => res.writeHead(404).end())
  server.on('connection', () => {
    connections += 1
  })
  const wss = new WebSocketServer({ server })
  wss.on('connection', (ws, req) => {
    const session: LiveServer['sessions'][number] = { url: req.url ?? '' }
    sessions.push(session)
    serveSession(ws, session)
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  return {
    url: `http://127.0.0.1:${port}`,
    get connections() {
      return connections
    },
    sessions,
    close: () =>
      new Promise<void>((resolve) => {
        for (const client of wss.clients) client.terminate()
        server.closeAllConnections()
        server.close(() => resolve())
      }),
  }
}

function serveSession(ws: WebSocket, session: { setup?: Message }): void {
  const send = (message: Message) => ws.send(JSON.stringify(message))
  let audioChunks = 0
  ws.on('message', (data: Buffer) => {
    const message = JSON.parse(data.toString()) as Message
    if (message.setup) {
      session.setup = message.setup as Message
      return send({ setupComplete: {} })
    }
    if (message.clientContent) {
      const turns = (message.clientContent as { turns?: { parts?: { text?: string }[] }[] }).turns
      const text = turns?.at(-1)?.parts?.[0]?.text
      if (text === 'break') return ws.close(1011, 'Internal error encountered.')
      if (text === 'cut') {
        const part = { serverContent: { modelTurn: { role: 'model', parts: [{ text: 'In Paris ' }] } } }
        // Once the part is written: what a dropped connection delivered before it dropped.
        return ws.send(JSON.stringify(part), () => ws.terminate())
      }
      const declared = JSON.stringify(session.setup?.tools ?? []).includes('get_weather')
      if (declared)
        return send({
          toolCall: { functionCalls: [{ id: 'fc_1', name: 'get_weather', args: { city: 'Paris' } }] },
        })
      return answer(send, ['Hello.'])
    }
    if (message.toolResponse) {
      const responses = (message.toolResponse as { functionResponses: { response: { temp: number } }[] })
        .functionResponses
      return answer(send, ['In Paris ', `it is ${responses[0]?.response.temp} degrees.`])
    }
    const input = message.realtimeInput as { audio?: unknown; audioStreamEnd?: boolean } | undefined
    if (input?.audio) audioChunks += 1
    if (input?.audioStreamEnd) {
      for (let i = 0; i < audioChunks; i++) {
        const data = Buffer.alloc(LIVE_AUDIO_CHUNK_BYTES, i % 256).toString('base64')
        send({
          serverContent: {
            modelTurn: { parts: [{ inlineData: { mimeType: 'audio/pcm;rate=24000', data } }] },
          },
        })
      }
      // The audio heard and said counted apart, three tokens a chunk each way, on 8 text tokens in.
      const audio = 3 * audioChunks
      send({
        serverContent: { turnComplete: true },
        usageMetadata: {
          promptTokenCount: 8 + audio,
          responseTokenCount: audio,
          totalTokenCount: 8 + 2 * audio,
          promptTokensDetails: [
            { modality: 'TEXT', tokenCount: 8 },
            { modality: 'AUDIO', tokenCount: audio },
          ],
          responseTokensDetails: [{ modality: 'AUDIO', tokenCount: audio }],
        },
      })
    }
  })
}

function answer(send: (message: Message) => void, texts: string[]): void {
  for (const text of texts) send({ serverContent: { modelTurn: { role: 'model', parts: [{ text }] } } })
  send({ serverContent: { generationComplete: true } })
  send({
    serverContent: { turnComplete: true },
    usageMetadata: { promptTokenCount: 40, responseTokenCount: 9 },
  })
}
