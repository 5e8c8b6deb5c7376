import { createServer, type IncomingMessage } from 'node:http'
import { createServer as createHttp2Server, type Http2ServerRequest, type Http2Session } from 'node:http2'
import type { AddressInfo, Server } from 'node:net'
import { anthropicMessages } from './anthropic-messages.js'
import { azureOpenaiChat } from './azure-openai.js'
import { bedrockConverse } from './bedrock-converse.js'
import { bedrockInvoke } from './bedrock-invoke.js'
import type { Endpoint } from './endpoint.js'
import { geminiApi, vertexGemini } from './gemini.js'
import { createIdFactory } from './ids.js'
import { ollamaChat, ollamaGenerate } from './ollama.js'
import { openaiChat } from './openai-chat.js'
import { openaiResponses } from './openai-responses.js'
import { readRequest } from './read-request.js'
import type { EndpointName, ReceivedRequest } from './received-request.js'
import { resolveTurn } from './resolve-turn.js'
import type { HttpErrorFault, Turn } from './turn.js'
import { isGone, type ResponseSink, SSE_WIRE, writeJson, writeStream } from './write-response.js'

/** Decides the answer to one request. */
export type Replier = (request: ReceivedRequest) => Turn | Promise<Turn>

/** Options of {@link startFakeProvider}. */
export interface FakeProviderOptions {
  /** A function from request to turn, or a script of turns served in order (one per model request). */
  reply: Replier | readonly Turn[]
  /** Delay before each stream event, in milliseconds (default 0); a turn may override it. */
  chunkDelayMs?: number
  /** Gzip non-streamed JSON when the client accepts it (default false); a turn may override it. */
  gzip?: boolean
  /** Seed of the generated ids; the same seed gives the same ids (default random). */
  seed?: string
  /**
   * Also answer HTTP/2 over cleartext (h2c, prior knowledge), on a port of its own: `http2Url`
   * (default false). The AWS SDK's default handler speaks it.
   */
  http2?: boolean
}

/** A running fake provider. */
export interface FakeProvider {
  /** `http://127.0.0.1:<port>` */
  readonly url: string
  /** `baseURL` for the `openai` SDK and `createOpenAI`: `url + '/v1'`. */
  readonly openaiBaseURL: string
  /** `baseURL` for `@anthropic-ai/sdk` (`url`); `createAnthropic` wants `url + '/v1'`. */
  readonly anthropicBaseURL: string
  /** `http://127.0.0.1:<port>` answering HTTP/2 (h2c), when started with `http2: true`. */
  readonly http2Url: string | undefined
  /** Every request received, in order of arrival, including unknown paths. */
  readonly requests: readonly ReceivedRequest[]
  /** TCP connections accepted so far, on both ports (0 proves a replay made no network call). */
  readonly connections: number
  /** Closes the server and every open connection. */
  close(): Promise<void>
}

// The first that matches answers: Azure's deployment path before OpenAI chat, which matches any
// path ending in /chat/completions (gateways and compatible servers put a prefix before it).
const ENDPOINTS: readonly Endpoint[] = [
  azureOpenaiChat,
  openaiChat,
  openaiResponses,
  anthropicMessages,
  ollamaChat,
  ollamaGenerate,
  bedrockConverse,
  bedrockInvoke,
  geminiApi,
  vertexGemini,
]

function endpointOf(method: string, path: string): EndpointName | undefined {
  return method === 'POST' ? ENDPOINTS.find((e) => e.matches(path.replace(/\/+$/, '')))?.name : undefined
}

function toReplier(reply: FakeProviderOptions['reply']): Replier {
  if (typeof reply === 'function') return reply
  const script = [...reply]
  let next = 0
  return (request) => {
    const turn = script[next++]
    if (turn) return turn
    throw new Error(
      `script exhausted: request ${request.path} is number ${next} but only ${script.length} turns`,
    )
  }
}

/**
 * Starts a loopback server that answers like the OpenAI (Chat Completions, Responses, on Azure's
 * paths too), Anthropic (Messages), Gemini (Gemini API and Vertex AI), Bedrock (Converse,
 * InvokeModel) and Ollama (chat, generate) APIs, JSON and streamed, with the turns a test scripts;
 * over HTTP/1.1, and over HTTP/2 too on a second port when asked (`http2: true`).
 *
 * @example
 * ```ts
 * const provider = await startFakeProvider({ reply: [{ text: 'Hello!' }] })
 * const client = new OpenAI({ apiKey: 'test', baseURL: provider.openaiBaseURL })
 * await client.chat.completions.create({ model: 'gpt-4.1', messages: [{ role: 'user', content: 'Hi' }] })
 * await provider.close()
 * ```
 */
export async function startFakeProvider(options: FakeProviderOptions): Promise<FakeProvider> {
  const replier = toReplier(options.reply)
  const ids = createIdFactory(options.seed)
  const requests: ReceivedRequest[] = []
  let connections = 0

  const fail = (
    res: ResponseSink,
    endpoint: Endpoint,
    fault: HttpErrorFault,
    extra: Record<string, string> = {},
  ) => {
    const headers = {
      ...endpoint.responseHeaders(ids),
      ...endpoint.errorHeaders?.(fault),
      ...extra,
      ...fault.headers,
    }
    const body = endpoint.errorBody(fault, headers[endpoint.requestIdHeader] ?? '')
    writeJson(
      res,
      fault.status,
      headers,
      body,
      { wanted: false, acceptEncoding: undefined },
      endpoint.jsonText,
    )
  }

  const handle = async (req: IncomingMessage | Http2ServerRequest, res: ResponseSink): Promise<void> => {
    const { request, invalidJson } = await readRequest(req, requests.length, endpointOf)
    requests.push(request)
    const endpoint = ENDPOINTS.find((e) => e.name === request.endpoint)
    if (!endpoint) {
      const shape = request.path.endsWith('/messages')
        ? anthropicMessages
        : /^\/api\/[a-z_]+$/.test(request.path)
          ? ollamaChat
          : openaiChat
      const message = `fake-provider: no endpoint for ${request.method} ${request.path}`
      return fail(res, shape, { status: 404, message }, { 'x-should-retry': 'false' })
    }
    if (invalidJson)
      return fail(res, endpoint, { status: 400, message: 'fake-provider: body is not a JSON object' })
    let turn: Turn
    try {
      turn = await replier(request)
    } catch (error) {
      // Our own failure: never invite the SDK to retry it.
      const message = `fake-provider: reply failed: ${error instanceof Error ? error.message : String(error)}`
      return fail(res, endpoint, { status: 500, message }, { 'x-should-retry': 'false' })
    }
    if (turn.headersDelayMs) await new Promise((resolve) => setTimeout(resolve, turn.headersDelayMs))
    if (isGone(res)) return
    if (turn.error) return fail(res, endpoint, turn.error)
    const resolved = resolveTurn(turn, request.rawBody)
    const model =
      turn.model ??
      endpoint.modelOf?.(request) ??
      (typeof request.body.model === 'string' ? request.body.model : 'unknown-model')
    const ctx = { request, turn: resolved, model, ids, created: Math.floor(Date.now() / 1000) }
    const headers = { ...endpoint.responseHeaders(ids), ...turn.headers }
    if (!(endpoint.wantsStream?.(request) ?? request.body.stream === true)) {
      const gzip = {
        wanted: turn.gzip ?? options.gzip ?? false,
        acceptEncoding: request.headers['accept-encoding'],
      }
      return writeJson(res, 200, headers, endpoint.json(ctx), gzip, endpoint.jsonText)
    }
    const events = endpoint.events(ctx)
    const fault = turn.streamError
    await writeStream(res, headers, events, endpoint.wire ?? SSE_WIRE, {
      delayMs: turn.chunkDelayMs ?? options.chunkDelayMs ?? 0,
      cutAfter: turn.cutAfterEvents,
      holdOpenMs: turn.holdOpenMs,
      holdAfter: turn.holdAfterEvents,
      error: fault && {
        after: fault.afterEvents ?? Math.floor(events.length / 2),
        event: endpoint.streamError(fault, fault.afterEvents ?? Math.floor(events.length / 2)),
      },
    })
  }

  const answer = (req: IncomingMessage | Http2ServerRequest, res: ResponseSink) => {
    handle(req, res).catch((error: unknown) => {
      if (!res.headersSent) res.writeHead(500, { 'content-type': 'text/plain', 'x-should-retry': 'false' })
      res.end(`fake-provider: ${error instanceof Error ? error.message : String(error)}`)
    })
  }
  const server = createServer(answer)
  const url = await listen(server, () => {
    connections += 1
  })
  // The same answers over HTTP/2 through node:http2's compatibility API, whose request and
  // response read like node:http's.
  const sessions = new Set<Http2Session>()
  const h2 = options.http2 ? createHttp2Server(answer) : undefined
  h2?.on('session', (session) => {
    sessions.add(session)
    session.on('close', () => sessions.delete(session))
  })
  const http2Url = h2
    ? await listen(h2, () => {
        connections += 1
      })
    : undefined
  return {
    url,
    openaiBaseURL: `${url}/v1`,
    anthropicBaseURL: url,
    http2Url,
    requests,
    get connections() {
      return connections
    },
    close: async () => {
      await Promise.all([
        close(server, () => server.closeAllConnections()),
        ...(h2 ? [close(h2, () => destroyAll(sessions))] : []),
      ])
    },
  }
}

async function listen(server: Server, onConnection: () => void): Promise<string> {
  server.on('connection', onConnection)
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject)
    server.listen(0, '127.0.0.1', () => resolve())
  })
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`
}

function destroyAll(sessions: Iterable<Http2Session>): void {
  for (const session of sessions) session.destroy()
}

function close(server: Server, dropConnections: () => void): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    server.close((error) => (error ? reject(error) : resolve()))
    dropConnections()
  })
}
