import { createMemoryStore, isReplayMiss, parseCassette } from '@agent-tape/core'
import { installHttpBoundary } from '@agent-tape/http'
import OpenAI from 'openai'
import { OpenAIRealtimeWS } from 'openai/realtime/ws'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type RealtimeServer, startRealtimeServer } from '../support/realtime-server.js'
import { runTaped } from '../support/tape-run.js'

// OpenAI Realtime sessions through the SDK's OpenAIRealtimeWS (the `ws` package), recorded
// against a loopback server that speaks the API's events, then replayed with no connection.
const boundary = installHttpBoundary()
const store = createMemoryStore()
const API_KEY = `sk-proj-${'RealtimeK3y'.repeat(4)}`
let server: RealtimeServer
let client: OpenAI

beforeAll(async () => {
  server = await startRealtimeServer()
  boundary.addModelEndpoints(server.baseURL)
  client = new OpenAI({ apiKey: API_KEY, baseURL: server.baseURL })
})
afterAll(() => server.close())

type ServerEvent = { type: string; [field: string]: unknown }

/** What the agent saw of a session: every server event's type, the text, the errors, how it closed. */
interface Seen {
  types: string[]
  text: string
  calls: string[]
  errors: string[]
  audioBytes: number
  binary: string[]
  close?: { code: number; reason: string }
}

/** Opens a session and runs `script` with it until the socket closes. */
function session(
  script: (rt: OpenAIRealtimeWS, next: (type: string) => Promise<ServerEvent>) => Promise<void>,
) {
  return async (): Promise<Seen> => {
    const rt = new OpenAIRealtimeWS({ model: 'gpt-realtime', options: { ca: server.ca } }, client)
    const seen: Seen = { types: [], text: '', calls: [], errors: [], audioBytes: 0, binary: [] }
    // Events arrive in bursts: each wait reads on from the last event it returned.
    const events: ServerEvent[] = []
    let read = 0
    const waiting: { type: string; resolve: (e: ServerEvent) => void }[] = []
    rt.on('event', (event) => {
      const e = event as ServerEvent
      seen.types.push(e.type)
      events.push(e)
      if (e.type === 'response.output_text.delta') seen.text += String(e.delta)
      if (e.type === 'response.output_audio.delta')
        seen.audioBytes += Buffer.from(String(e.delta), 'base64').length
      if (e.type === 'response.function_call_arguments.done') seen.calls.push(`${e.name}(${e.arguments})`)
      const i = waiting.findIndex((w) => w.type === e.type)
      if (i >= 0) {
        read = events.length
        waiting.splice(i, 1)[0]!.resolve(e)
      }
    })
    rt.on('error', (error) => seen.errors.push(error.message))
    rt.socket.on('message', (data, isBinary) => {
      if (isBinary) seen.binary.push(Buffer.from(data as Buffer).toString('hex'))
    })
    const closed = new Promise<void>((resolve) =>
      rt.socket.on('close', (code, reason) => {
        seen.close = { code, reason: reason.toString() }
        resolve()
      }),
    )
    const next = (type: string) => {
      const at = events.findIndex((e, i) => i >= read && e.type === type)
      if (at >= 0) {
        read = at + 1
        return Promise.resolve(events[at]!)
      }
      return Promise.race([
        new Promise<ServerEvent>((resolve) => waiting.push({ type, resolve })),
        closed.then(() => ({ type: 'closed' })),
      ])
    }
    await new Promise<void>((resolve, reject) => {
      rt.socket.once('open', () => resolve())
      rt.socket.once('error', reject)
    })
    await script(rt, next)
    await closed
    return seen
  }
}

const WEATHER_TOOL = {
  type: 'function' as const,
  name: 'get_weather',
  description: 'The weather in a city',
  parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
}

/** A text session: the model asks for a tool, gets its output, and answers. */
const textSession = (instructions: string) =>
  session(async (rt, next) => {
    rt.send({
      type: 'session.update',
      session: { type: 'realtime', instructions, output_modalities: ['text'], tools: [WEATHER_TOOL] },
    } as never)
    await next('session.updated')
    rt.send({
      type: 'conversation.item.create',
      item: { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'Weather in Paris?' }] },
    })
    rt.send({ type: 'response.create' })
    const done = await next('response.function_call_arguments.done')
    await next('response.done')
    rt.send({
      type: 'conversation.item.create',
      item: { type: 'function_call_output', call_id: String(done.call_id), output: '{"temp":21}' },
    })
    rt.send({ type: 'response.create' })
    await next('response.done')
    rt.close()
  })

const cassette = (file: string) => parseCassette(store.files[file]!, file)

describe('a text session with a function call', () => {
  let recorded: Seen

  it('is recorded frame by frame, without the key', async () => {
    const run = await runTaped(store, 'text.jsonl', 'update', textSession('Be brief.'))
    expect(run.error).toBeUndefined()
    expect(run.failure).toBeUndefined()
    recorded = run.result!
    expect(recorded.calls).toEqual(['get_weather({"city":"Paris"})'])
    expect(recorded.text).toBe('In Paris it is 21 degrees.')
    expect(recorded.close).toEqual({ code: 1000, reason: 'OK' })
    expect(server.handshakes.at(-1)).toMatchObject({
      url: '/v1/realtime?model=gpt-realtime',
      headers: { authorization: `Bearer ${API_KEY}` },
    })
    const { decisions } = cassette('text.jsonl')
    expect(decisions.map((d) => [d.kind, (d.in as { frame: string }).frame])).toEqual([
      ['websocket', 'open'],
      ['websocket', 'session.update'],
      ['websocket', 'conversation.item.create'],
      ['websocket', 'response.create'],
      ['websocket', 'conversation.item.create'],
      ['websocket', 'response.create'],
    ])
    expect(decisions[0]!.in).toEqual({
      api: 'openai-realtime',
      frame: 'open',
      url: '/v1/realtime?model=gpt-realtime',
      protocols: [],
      headers: {},
    })
    expect(store.files['text.jsonl']).not.toContain(API_KEY)
  })

  it('replays with no connection: the same events, text, tool call and close', async () => {
    const before = server.connections
    const run = await runTaped(store, 'text.jsonl', 'replay', textSession('Be brief.'))
    expect(run.failure).toBeUndefined()
    expect(run.result).toEqual(recorded)
    expect(server.connections).toBe(before)
  })

  it('misses at session.update when one word of the instructions changes, with the diff', async () => {
    const before = server.connections
    const run = await runTaped(store, 'text.jsonl', 'replay', textSession('Be concise.'))
    expect(isReplayMiss(run.failure)).toBe(true)
    const message = run.failure!.message
    expect(message).toContain('websocket session.update (openai-realtime)')
    expect(message).toMatch(/message\.session\.instructions/)
    expect(message).toContain('brief')
    expect(message).toContain('concise')
    // The SDK raised the API's error event, and the session closed as a server error.
    expect(run.result?.errors[0]).toContain('ERR_TAPE_MISS')
    expect(run.result?.close?.code).toBe(1011)
    expect(server.connections).toBe(before)
  })
})
