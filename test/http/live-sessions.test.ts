import { mkdtempSync, writeFileSync } from 'node:fs'
import type { AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createMemoryStore, parseCassette } from '@agent-tape/core'
import { installHttpBoundary } from '@agent-tape/http'
import { GoogleGenAI, Modality } from '@google/genai'
import { WebSocket as UndiciWebSocket } from 'undici7'
import { afterAll, beforeAll, expect, it } from 'vitest'
import { WebSocket, WebSocketServer } from 'ws'
import { runCli } from '../cli/support/cli.js'
import { type LiveConfig, liveSession } from '../support/live-client.js'
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

/** Connects with `config`, runs `script`, and waits for the session to close. */
const live = (config: LiveConfig, script: Parameters<typeof liveSession>[2]) =>
  liveSession(() => ai, config, script)

// Recording, replay, the miss and the credential of a text session with a tool call are the
// session contract's (test/providers/session-contract.test.ts).

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
  // Priced by the model `setup` named, kept on each decision: 8 text tokens in at $0.50 per
  // million, and 60 of audio each way at gemini-live-2.5-flash's audio rates, $3 in and $12 out.
  const root = mkdtempSync(join(tmpdir(), 'agent-tape-live-'))
  writeFileSync(join(root, 'live-audio.jsonl'), store.files['live-audio.jsonl']!)
  const shown = (await runCli(['show', 'live-audio.jsonl'], root)).stdout.split('\n').map((l) => l.trim())
  expect(shown).toContain('tokens     68 in / 60 out')
  expect(shown).toContain(`cost       $${Number(((8 * 0.5 + 60 * 3 + 60 * 12) / 1e6).toPrecision(2))}`)
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
    const answer = await new Promise<Buffer>((resolve) =>
      ws.once('message', (data) => resolve(data as Buffer)),
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
