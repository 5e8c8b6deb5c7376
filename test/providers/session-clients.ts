import { GoogleGenAI, Modality } from '@google/genai'
import OpenAI, { AzureOpenAI } from 'openai'
import { OpenAIRealtimeWS } from 'openai/realtime/ws'
import { ResponsesWS } from 'openai/resources/responses/ws'
import OpenAI7 from 'openai7'
import { ResponsesWS as ResponsesWS7 } from 'openai7/resources/responses/ws'
import { LIVE_WEATHER_TOOL, type LiveSeen, liveSession } from '../support/live-client.js'
import { startLiveServer } from '../support/live-server.js'
import { realtimeSession, realtimeWeather } from '../support/realtime-client.js'
import { startRealtimeServer } from '../support/realtime-server.js'
import { responsesWeather, responsesWsSession } from '../support/responses-ws-client.js'
import { startResponsesWsServer } from '../support/responses-ws-server.js'

/** What the agent saw of a session, alike for every API: the server's messages, the answer, the close. */
export interface SessionSeen {
  /** Each server message by its type (Realtime's `type`, Live's fields). */
  messages: string[]
  text: string
  calls: string[]
  /** The errors the SDK raised. */
  errors: string[]
  close?: { code: number; reason: string }
}

/** The app's tool the model calls over the session: `get_weather`. */
export type Lookup = (city: string) => Promise<unknown>

/** A loopback server of one realtime API, and the sessions its SDK opens to it. */
export interface SessionFake {
  /** The model endpoint a user declares for it. */
  readonly endpoint: string
  /** TCP connections accepted so far: 0 more proves a replay reached nothing. */
  readonly connections: number
  /** What the SDK sent at every handshake so far (URLs and headers), as text. */
  handshakes(): string
  /**
   * The weather session: `instructions` set up, a question whose answer is a call of
   * `get_weather`, run by `lookup`, and the answer the model makes of its result. `key` is the
   * credential the client is given.
   */
  weather(instructions: string, lookup: Lookup, key?: string): () => Promise<SessionSeen>
  /** A session that asks `text` once (`break` and `cut` end it from the server). */
  ask(text: string): () => Promise<SessionSeen>
  close(): Promise<void>
}

/**
 * What differs between the realtime APIs in the scenarios every one must pass alike: which
 * session codec owns the session, the frame that sets it up and the field its instructions are
 * in (as a miss names them), the frames of the weather session, the credential its SDK sends,
 * how it closes a session on a server error, and its loopback server.
 */
export interface SessionClient {
  /** The SDK and the API it speaks. */
  readonly name: string
  /** The session codec that owns the session. */
  readonly api: string
  /** The client message that carries the instructions. */
  readonly setupFrame: string
  /** The field of that message the instructions are in, as the miss's diff names it. */
  readonly instructionField: string
  /** The decisions of the weather session: each client frame, `tool` for the app's tool. */
  readonly weatherFrames: readonly string[]
  /** The credential the SDK sends, and where. */
  readonly credential: { readonly key: string; readonly where: string }
  /** The tokens the server reports over the weather session. */
  readonly tokens: { readonly input: number; readonly output: number }
  /** What the agent sees when the server closes the session with an error. */
  readonly serverError: {
    readonly errors: readonly string[]
    readonly close: { code: number; reason: string }
  }
  start(): Promise<SessionFake>
}

/** What the agent saw of a session of an OpenAI SDK (Realtime or Responses), as every API's is compared. */
const seenOf =
  (run: () => Promise<Omit<SessionSeen, 'messages'> & { types: string[] }>) =>
  async (): Promise<SessionSeen> => {
    const s = await run()
    return { messages: s.types, text: s.text, calls: s.calls, errors: s.errors, close: s.close }
  }

/** A loopback server of an OpenAI API (its base URL the endpoint) with the sessions its SDK opens. */
function openaiFake(
  server: { baseURL: string; connections: number; handshakes: unknown; close(): Promise<void> },
  sessions: Pick<SessionFake, 'weather' | 'ask'>,
  endpoint = server.baseURL,
): SessionFake {
  return {
    endpoint,
    get connections() {
      return server.connections
    },
    handshakes: () => JSON.stringify(server.handshakes),
    ...sessions,
    close: () => server.close(),
  }
}

/** Not shaped like any provider's key: only the boundary keeps it out, not the secret scan. */
const KEY = `session-${'K3yT0ken'.repeat(4)}`

/** OpenAI Realtime through `OpenAIRealtimeWS`, on OpenAI or (`OpenAIRealtimeWS.azure`) Azure OpenAI. */
const realtime = (cloud: 'openai' | 'azure'): SessionClient => ({
  name: cloud === 'openai' ? 'openai: OpenAIRealtimeWS' : 'openai: OpenAIRealtimeWS.azure (Azure OpenAI)',
  api: 'openai-realtime',
  setupFrame: 'session.update',
  instructionField: 'message.session.instructions',
  weatherFrames: [
    'open',
    'session.update',
    'conversation.item.create',
    'response.create',
    'tool',
    'conversation.item.create',
    'response.create',
  ],
  credential: { key: KEY, where: cloud === 'openai' ? 'the Authorization header' : 'the api-key header' },
  // Two responses (the call, then the answer), each \`usage\` of 120 in and 30 out.
  tokens: { input: 240, output: 60 },
  serverError: {
    errors: ['The server had an error. code=null param=undefined type=server_error event_id=undefined'],
    close: { code: 1011, reason: 'internal error' },
  },
  async start() {
    const server = await startRealtimeServer()
    const open = (apiKey: string) => () =>
      cloud === 'openai'
        ? new OpenAIRealtimeWS(
            { model: 'gpt-realtime', options: { ca: server.ca } },
            new OpenAI({ apiKey, baseURL: server.baseURL }),
          )
        : // …/openai/realtime?api-version=…&deployment=…, the key in an api-key header.
          OpenAIRealtimeWS.azure(
            new AzureOpenAI({
              apiKey,
              endpoint: new URL(server.baseURL).origin,
              apiVersion: '2025-04-01-preview',
              deployment: 'gpt-realtime',
            }),
            { options: { ca: server.ca } },
          )
    return openaiFake(
      server,
      {
        weather: (instructions, lookup, key = KEY) =>
          seenOf(realtimeSession(open(key), realtimeWeather(instructions, lookup))),
        ask: (text) =>
          seenOf(
            realtimeSession(open(KEY), async (rt, next) => {
              rt.send({
                type: 'conversation.item.create',
                item: { type: 'message', role: 'user', content: [{ type: 'input_text', text }] },
              })
              if ((await next('conversation.item.created')).type === 'closed') return
              rt.send({ type: 'response.create' })
              if ((await next('response.done')).type !== 'closed') rt.close()
            }),
          ),
      },
      // Azure's endpoint is the resource's origin: its sessions are under /openai/, not /v1.
      cloud === 'openai' ? server.baseURL : new URL(server.baseURL).origin,
    )
  },
})

const live: SessionClient = {
  name: 'gemini: ai.live.connect',
  api: 'gemini-live',
  setupFrame: 'setup',
  instructionField: 'message.setup.systemInstruction.parts[0].text',
  weatherFrames: ['open', 'setup', 'clientContent', 'tool', 'toolResponse'],
  credential: { key: KEY, where: 'the key= query parameter' },
  // The answer's \`usageMetadata\` (the tool call has none).
  tokens: { input: 40, output: 9 },
  serverError: { errors: [], close: { code: 1011, reason: 'Internal error encountered.' } },
  async start() {
    const server = await startLiveServer()
    const ai = (key: string) => () => new GoogleGenAI({ apiKey: key, httpOptions: { baseUrl: server.url } })
    const seen = (run: () => Promise<LiveSeen>) => async () => {
      const s = await run()
      const close = s.closed === undefined ? undefined : { code: s.closed, reason: s.reason ?? '' }
      return { messages: s.kinds, text: s.text, calls: s.calls, errors: [], close }
    }
    return {
      endpoint: server.url,
      get connections() {
        return server.connections
      },
      handshakes: () => JSON.stringify(server.sessions.map((s) => s.url)),
      weather: (instructions, lookup, key = KEY) =>
        seen(
          liveSession(
            ai(key),
            {
              responseModalities: [Modality.TEXT],
              systemInstruction: instructions,
              tools: [LIVE_WEATHER_TOOL],
            },
            async (session, next) => {
              session.sendClientContent({
                turns: [{ role: 'user', parts: [{ text: 'Weather in Paris?' }] }],
                turnComplete: true,
              })
              const call = (await next('toolCall')).toolCall?.functionCalls?.[0]
              if (!call?.id) return
              const { city } = call.args as { city: string }
              session.sendToolResponse({
                functionResponses: [
                  {
                    id: call.id,
                    name: 'get_weather',
                    response: (await lookup(city)) as Record<string, unknown>,
                  },
                ],
              })
              await next('turnComplete')
            },
          ),
        ),
      ask: (text) =>
        seen(
          liveSession(ai(KEY), { responseModalities: [Modality.TEXT] }, async (session, next) => {
            session.sendClientContent({ turns: [{ role: 'user', parts: [{ text }] }], turnComplete: true })
            await next('turnComplete')
          }),
        ),
      close: () => server.close(),
    }
  },
}

/** The Responses API's WebSocket mode through `ResponsesWS` of the `openai` SDK, 6 or 7. */
const responses = (sdk: 6 | 7): SessionClient => ({
  name: `openai ${sdk}: ResponsesWS`,
  api: 'openai-responses-ws',
  setupFrame: 'response.create',
  instructionField: 'message.instructions',
  weatherFrames: ['open', 'response.create', 'tool', 'response.create'],
  credential: { key: KEY, where: 'the Authorization header' },
  // Two responses (the call, then the answer), each \`usage\` of 120 in and 30 out.
  tokens: { input: 240, output: 60 },
  serverError: {
    // openai 6 raises the whole event, as JSON; 7 its message.
    errors: [
      sdk === 6
        ? '{"type":"error","status":500,"error":{"type":"server_error","code":null,"message":"The server had an error.","param":null},"sequence_number":0}'
        : 'The server had an error.',
    ],
    close: { code: 1011, reason: 'internal error' },
  },
  async start() {
    const server = await startResponsesWsServer()
    const open = (apiKey: string) => () =>
      sdk === 6
        ? new ResponsesWS(new OpenAI({ apiKey, baseURL: server.baseURL }))
        : // The same API in the next major: what the tests use of it is alike.
          (new ResponsesWS7(new OpenAI7({ apiKey, baseURL: server.baseURL })) as unknown as ResponsesWS)
    return openaiFake(server, {
      weather: (instructions, lookup, key = KEY) =>
        seenOf(responsesWsSession(open(key), responsesWeather(instructions, lookup))),
      ask: (text) =>
        seenOf(
          responsesWsSession(open(KEY), async (rws, next) => {
            rws.send({ type: 'response.create', model: 'gpt-4.1-mini', input: text, store: false })
            if ((await next('response.completed')).type !== 'closed') rws.close()
          }),
        ),
    })
  },
})

/** The realtime APIs whose sessions agent-tape tapes. */
export const SESSION_CLIENTS: readonly SessionClient[] = [
  realtime('openai'),
  realtime('azure'),
  live,
  responses(6),
  responses(7),
]
