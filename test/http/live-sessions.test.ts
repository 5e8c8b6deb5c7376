import type { AddressInfo } from 'node:net'
import { createMemoryStore, isReplayMiss, parseCassette } from '@agent-tape/core'
import { installHttpBoundary } from '@agent-tape/http'
import { readSessionDecision } from '@agent-tape/http/internal'
import { GoogleGenAI, type LiveServerMessage, Modality, type Session } from '@google/genai'
import { WebSocket as UndiciWebSocket } from 'undici7'
import { afterAll, beforeAll, expect, it } from 'vitest'
import { WebSocket, WebSocketServer } from 'ws'
import { LIVE_AUDIO_CHUNK_BYTES, type LiveServer, startLiveServer } from '../support/live-server.js'
import { runTaped } from '../support/tape-run.js'

// Gemini Live sessions through @google/genai's ai.live.connect (the `ws` package in Node),
// recorded against a loopback server that speaks the API's messages, replayed with no connection.
const boundary = installHttpBoundary()
const store = createMemoryStore()
const API_KEY = `AIza${'LiveK3yForTests'.repeat(2)}x`
let server: LiveServer
let ai: GoogleGenAI

beforeAll(async () => {
  server = await startLiveServer()
  boundary.addModelEndpoints(server.url)
  ai = new GoogleGenAI({ apiKey: API_KEY, httpOptions: { baseUrl: server.url } })
})
afterAll(() => server.close())

/** What the agent saw: the messages' kinds, the text, the tool calls, the audio, how it closed. */
interface Seen {
  kinds: string[]
  text: string
  calls: string[]
  audioBytes: number
  closed?: number
}

/** Connects, runs `script`, and waits for the session to close. */
function live(
  config: Parameters<GoogleGenAI['live']['connect']>[0]['config'],
  script: (session: Session, next: (kind: string) => Promise<LiveServerMessage>) => Promise<void>,
) {
  return async (): Promise<Seen> => {
    const seen: Seen = { kinds: [], text: '', calls: [], audioBytes: 0 }
    const messages: LiveServerMessage[] = []
    let read = 0
    let wake: (() => void) | undefined
    let onClose: () => void = () => {}
    const closed = new Promise<void>((resolve) => {
      onClose = resolve
    })
    const connecting = ai.live.connect({
      model: 'gemini-live-2.5-flash',
      config,
      callbacks: {
        onmessage: (message) => {
          const kind = Object.keys(message).filter(
            (k) => (message as unknown as Record<string, unknown>)[k] !== undefined,
          )
          seen.kinds.push(kind.join('+'))
          for (const part of message.serverContent?.modelTurn?.parts ?? []) {
            if (part.text) seen.text += part.text
            if (part.inlineData?.data) seen.audioBytes += Buffer.from(part.inlineData.data, 'base64').length
          }
          for (const call of message.toolCall?.functionCalls ?? [])
            seen.calls.push(`${call.name}(${JSON.stringify(call.args)})`)
          messages.push(message)
          wake?.()
        },
        onclose: (event) => {
          seen.closed = event.code
          onClose()
          wake?.()
        },
      },
    })
    // The SDK waits for `setupComplete`, which a session closed at its setup never sends.
    const session = await Promise.race([connecting, closed.then(() => undefined)])
    if (!session) return seen
    const next = async (kind: string): Promise<LiveServerMessage> => {
      for (;;) {
        const at = messages.findIndex(
          (m, i) =>
            i >= read &&
            (kind === 'turnComplete'
              ? m.serverContent?.turnComplete
              : (m as unknown as Record<string, unknown>)[kind]),
        )
        if (at >= 0) {
          read = at + 1
          return messages[at]!
        }
        if (seen.closed !== undefined) return {} as LiveServerMessage
        await new Promise<void>((resolve) => {
          wake = resolve
        })
      }
    }
    await script(session, next)
    session.close()
    await closed
    return seen
  }
}

const WEATHER = {
  functionDeclarations: [
    {
      name: 'get_weather',
      description: 'The weather in a city',
      parametersJsonSchema: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
    },
  ],
}

const textSession = (instructions: string) =>
  live(
    { responseModalities: [Modality.TEXT], systemInstruction: instructions, tools: [WEATHER] },
    async (s, next) => {
      s.sendClientContent({
        turns: [{ role: 'user', parts: [{ text: 'Weather in Paris?' }] }],
        turnComplete: true,
      })
      const call = await next('toolCall')
      const id = call.toolCall?.functionCalls?.[0]?.id
      if (!id) return
      s.sendToolResponse({ functionResponses: [{ id, name: 'get_weather', response: { temp: 21 } }] })
      await next('turnComplete')
    },
  )

let recorded: Seen

it('records a text session with a tool call, keyed by its messages, without the key', async () => {
  const run = await runTaped(store, 'live.jsonl', 'update', textSession('Be brief.'))
  expect(run.failure).toBeUndefined()
  recorded = run.result!
  expect(recorded.calls).toEqual(['get_weather({"city":"Paris"})'])
  expect(recorded.text).toBe('In Paris it is 21 degrees.')
  expect(server.sessions.at(-1)!.url).toContain(`key=${API_KEY}`)
  const { decisions } = parseCassette(store.files['live.jsonl']!, 'live.jsonl')
  expect(decisions.map((d) => (d.in as { frame: string }).frame)).toEqual([
    'open',
    'setup',
    'clientContent',
    'toolResponse',
  ])
  expect((decisions[0]!.in as { url: string }).url).toMatch(
    /\/ws\/google\.ai\.generativelanguage\.v1beta\.GenerativeService\.BidiGenerateContent$/,
  )
  expect(store.files['live.jsonl']).not.toContain(API_KEY)
  // The tool call reads like one over HTTP.
  expect(readSessionDecision(decisions[2]!.in, decisions[2]!.out)?.answer.toolCalls).toEqual([
    { id: 'fc_1', name: 'get_weather', arguments: '{"city":"Paris"}' },
  ])
})

it('replays it with no connection', async () => {
  const before = server.connections
  const run = await runTaped(store, 'live.jsonl', 'replay', textSession('Be brief.'))
  expect(run.failure).toBeUndefined()
  expect(run.result).toEqual(recorded)
  expect(server.connections).toBe(before)
})

it('misses at setup when one word of the system instruction changes, with the diff', async () => {
  const run = await runTaped(store, 'live.jsonl', 'replay', textSession('Be concise.'))
  expect(isReplayMiss(run.failure)).toBe(true)
  const message = run.failure!.message
  expect(message).toContain('websocket setup (gemini-live)')
  expect(message).toMatch(/message\.setup\.systemInstruction\S*: "Be brief\." → "Be concise\."/)
})

it('records and replays an audio session: chunks in, inline audio out', async () => {
  const audio = live({ responseModalities: [Modality.AUDIO] }, async (s, next) => {
    for (let i = 0; i < 20; i++)
      s.sendRealtimeInput({
        audio: { data: Buffer.alloc(3200, i).toString('base64'), mimeType: 'audio/pcm;rate=16000' },
      })
    s.sendRealtimeInput({ audioStreamEnd: true })
    await next('turnComplete')
  })
  const recording = await runTaped(store, 'live-audio.jsonl', 'update', audio)
  expect(recording.failure).toBeUndefined()
  expect(recording.result!.audioBytes).toBe(20 * LIVE_AUDIO_CHUNK_BYTES)
  const chunk = parseCassette(store.files['live-audio.jsonl']!, 'live-audio.jsonl').decisions[2]!
  expect(chunk.in).toEqual({
    api: 'gemini-live',
    frame: 'realtimeInput',
    message: {
      realtimeInput: {
        audio: {
          data: { sha256: expect.stringMatching(/^[0-9a-f]{32}$/), bytes: 3200 },
          mimeType: 'audio/pcm;rate=16000',
        },
      },
    },
  })
  const before = server.connections
  const replay = await runTaped(store, 'live-audio.jsonl', 'replay', audio)
  expect(replay.failure).toBeUndefined()
  expect(replay.result).toEqual(recording.result)
  expect(server.connections).toBe(before)
})

it("records and replays a session of undici's WebSocket (the global one of Node 22 and later)", async () => {
  const url = `${server.url.replace('http', 'ws')}/ws/google.ai.generativelanguage.v1beta.GenerativeService.BidiGenerateContent?key=${API_KEY}`
  const session = (instruction: string) => async () => {
    const ws = new UndiciWebSocket(url)
    const seen: string[] = []
    ws.onmessage = (event) => {
      const message = JSON.parse(String(event.data))
      seen.push(Object.keys(message).join('+'))
      if (message.setupComplete)
        ws.send(
          JSON.stringify({
            clientContent: { turns: [{ role: 'user', parts: [{ text: 'Hi' }] }], turnComplete: true },
          }),
        )
      if (message.serverContent?.turnComplete) ws.close(1000)
    }
    await new Promise((resolve) => {
      ws.onopen = () =>
        ws.send(
          JSON.stringify({
            setup: {
              model: 'models/gemini-live-2.5-flash',
              systemInstruction: { parts: [{ text: instruction }] },
            },
          }),
        )
      ws.onclose = (event) => resolve(seen.push(`close ${event.code}`))
      ws.onerror = () => seen.push('error')
    })
    return seen
  }
  const recording = await runTaped(store, 'undici.jsonl', 'update', session('Be brief.'))
  expect(recording.failure).toBeUndefined()
  expect(recording.result).toEqual([
    'setupComplete',
    'serverContent',
    'serverContent',
    'serverContent+usageMetadata',
    'close 1000',
  ])
  expect(store.files['undici.jsonl']).not.toContain(API_KEY)
  const before = server.connections
  const replay = await runTaped(store, 'undici.jsonl', 'replay', session('Be brief.'))
  expect(replay.failure).toBeUndefined()
  expect(replay.result).toEqual(recording.result)
  const missed = await runTaped(store, 'undici.jsonl', 'replay', session('Be concise.'))
  expect(missed.failure?.message).toContain('websocket setup (gemini-live)')
  expect(missed.result).toEqual(['close 1011'])
  expect(server.connections).toBe(before)
})

it('lets a WebSocket to loopback that is not a model endpoint through, untaped, in a replay too', async () => {
  const echo = new WebSocketServer({ port: 0, host: '127.0.0.1' })
  echo.on('connection', (ws) => ws.on('message', (data) => ws.send(`echo ${data}`)))
  await new Promise((resolve) => echo.once('listening', resolve))
  const { port } = echo.address() as AddressInfo
  const ping = async () => {
    const ws = new WebSocket(`ws://127.0.0.1:${port}/dev`)
    await new Promise((resolve) => ws.once('open', resolve))
    ws.send('ping')
    const [answer] = await new Promise<[Buffer]>((resolve) =>
      ws.once('message', (...args) => resolve(args as [Buffer])),
    )
    ws.close()
    return String(answer)
  }
  try {
    const recording = await runTaped(store, 'local.jsonl', 'update', ping)
    expect(recording.result).toBe('echo ping')
    expect(recording.failure).toBeUndefined()
    expect(parseCassette(store.files['local.jsonl']!, 'local.jsonl').decisions).toEqual([])
    const replay = await runTaped(store, 'local.jsonl', 'replay', ping)
    expect(replay.failure).toBeUndefined()
    expect(replay.result).toBe('echo ping')
  } finally {
    await new Promise((resolve) => echo.close(resolve))
  }
})
