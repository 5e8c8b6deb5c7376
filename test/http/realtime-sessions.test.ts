import { mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import {
  AgentTapeError,
  createMemoryStore,
  isReplayMiss,
  isSecretLeakError,
  parseCassette,
} from '@agent-tape/core'
import type { LiveGateAnswer } from '@agent-tape/core/internal'
import { installHttpBoundary } from '@agent-tape/http'
import OpenAI from 'openai'
import { OpenAIRealtimeWebSocket } from 'openai/realtime/websocket'
import { OpenAIRealtimeWS } from 'openai/realtime/ws'
import { WebSocket as UndiciWebSocket } from 'undici7'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { runCli, viewedToolCalls } from '../cli/support/cli.js'
import {
  type NextEvent,
  type RealtimeSeen,
  realtimeSession,
  realtimeWeather,
} from '../support/realtime-client.js'
import {
  AUDIO_CHUNK_BYTES,
  REJECTED_KEY,
  type RealtimeServer,
  SLOW_MS,
  startRealtimeServer,
} from '../support/realtime-server.js'
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

/** Opens a session of the SDK's OpenAIRealtimeWS and runs `script` with it until the socket closes. */
const session = (script: (rt: OpenAIRealtimeWS, next: NextEvent) => Promise<void>) =>
  realtimeSession(
    () => new OpenAIRealtimeWS({ model: 'gpt-realtime', options: { ca: server.ca } }, client),
    script,
  )

/** A text session: the model asks for a tool, gets its output (21 degrees), and answers. */
const textSession = (instructions: string) =>
  session(realtimeWeather(instructions, async () => ({ temp: 21 })))

const cassette = (file: string) => parseCassette(store.files[file]!, file)

/** Millionths of a dollar as `show` prints them: two significant digits. */
const dollars = (micro: number) => `$${Number((micro / 1e6).toPrecision(2))}`

// Recording, replay, the miss and the credential of a text session are the session contract's
// (test/providers/session-contract.test.ts); the tests below read this recording.
beforeAll(async () => {
  const run = await runTaped(store, 'text.jsonl', 'update', textSession('Be brief.'))
  expect(run.failure).toBeUndefined()
  expect(cassette('text.jsonl').decisions[0]!.in).toEqual({
    api: 'openai-realtime',
    frame: 'open',
    url: '/v1/realtime?model=gpt-realtime',
    protocols: [],
    headers: {},
  })
})

/** Thirty seconds of 24 kHz 16-bit mono audio, sent in 100 ms chunks, answered in audio. */
const audioSession = (chunks: number, altered?: number) =>
  session(async (rt, next) => {
    rt.send({ type: 'session.update', session: { type: 'realtime', output_modalities: ['audio'] } } as never)
    await next('session.updated')
    for (let i = 0; i < chunks; i++) {
      const pcm = Buffer.alloc(AUDIO_CHUNK_BYTES, i === altered ? 255 : i % 200)
      rt.send({ type: 'input_audio_buffer.append', audio: pcm.toString('base64') })
    }
    rt.send({ type: 'input_audio_buffer.commit' })
    rt.send({ type: 'response.create' })
    if ((await next('response.done')).type === 'closed') return
    // A binary frame each way (the fake sends its bytes back reversed).
    rt.socket.send(Buffer.from([1, 2, 3, 4]))
    await new Promise((resolve) => rt.socket.once('message', resolve))
    rt.close()
  })

it('reads in show, diff, verify and view like a model exchange: its text, its tool call', async () => {
  const root = mkdtempSync(join(tmpdir(), 'agent-tape-realtime-'))
  writeFileSync(join(root, 'text.jsonl'), store.files['text.jsonl']!)
  const shown = await runCli(['show', 'text.jsonl'], root)
  expect(shown.code).toBe(0)
  const lines = shown.stdout.split('\n').map((line) => line.trim())
  // Each response.create asks the model for a turn: it starts a step, as a model request does,
  // and the output of the tool it asked for, sent back, is of that step.
  expect(
    cassette('text.jsonl').decisions.map((d) => [(d.in as { frame?: string }).frame ?? d.kind, d.step]),
  ).toEqual([
    ['open', 0],
    ['session.update', 0],
    ['conversation.item.create', 0],
    ['response.create', 1],
    ['conversation.item.create', 1],
    ['response.create', 2],
  ])
  expect(lines).toContainEqual(
    expect.stringMatching(/^#4 +step 1 +websocket response\.create \(openai-realtime\)/),
  )
  expect(lines).toContainEqual(expect.stringMatching(/^call +get_weather \{"city":"Paris"\}$/))
  expect(lines).toContainEqual(expect.stringMatching(/^text +In Paris it is 21 degrees\.$/))
  expect(lines).toContainEqual(
    expect.stringMatching(/^answer +streamed · 101 · 120 in \/ 30 out tokens · finish completed$/),
  )
  // Priced by the model the session ran (gpt-realtime, named by session.created and kept on each
  // decision): two responses of 120 text tokens in at $4 per million and 30 out at $16.
  expect(lines).toContain(`cost       ${dollars(2 * (120 * 4 + 30 * 16))}`)
  expect((await runCli(['verify', 'text.jsonl'], root)).stdout).toContain('ok    text.jsonl  6 decisions')
  const diffed = await runCli(['diff', 'text.jsonl', 'text.jsonl'], root)
  expect(diffed.stdout).toContain('= #4  step 1  websocket response.create (openai-realtime)')
  // Another recording of the same session: each frame came at another time, and the server's
  // event ids are new. Neither is a difference; another word in the answer is the model's.
  const recordedAgain = (edit: (text: string) => string) =>
    store.files['text.jsonl']!.split('\n').map((line, i) => {
      if (i === 0 || line === '') return line
      const record = JSON.parse(line)
      for (const frame of record.out?.frames ?? []) {
        frame.at += 7
        if (frame.text) frame.text = edit(frame.text.replace(/"event_(\d+)"/g, '"event_Q8x2Lm0$1Zt"'))
      }
      return JSON.stringify(record)
    })
  writeFileSync(join(root, 'again.jsonl'), recordedAgain((text) => text).join('\n'))
  const again = await runCli(['diff', 'text.jsonl', 'again.jsonl'], root)
  expect(again.stdout).toContain('6 → 6 decisions: 0 changed, 0 added, 0 removed, 6 unchanged')
  writeFileSync(
    join(root, 'moved.jsonl'),
    recordedAgain((text) => text.replace('"it is "', '"it was "')).join('\n'),
  )
  const moved = await runCli(['diff', 'text.jsonl', 'moved.jsonl'], root)
  expect(moved.stdout).toContain('6 → 6 decisions: 1 changed, 0 added, 0 removed, 5 unchanged')
  expect(moved.stdout).toContain('~ #6  step 2  websocket response.create (openai-realtime)')
  const calls = await viewedToolCalls(root, 'text.jsonl')
  expect(calls).toEqual([{ id: 'call_1', name: 'get_weather', arguments: '{"city":"Paris"}' }])
})

describe('an audio session', () => {
  let recorded: RealtimeSeen

  it('keeps the server audio as sent (base64) and the client audio as digests: 30 s in under 2.1 MB', async () => {
    const run = await runTaped(store, 'audio.jsonl', 'update', audioSession(300))
    expect(run.failure).toBeUndefined()
    recorded = run.result!
    expect(recorded.audioBytes).toBe(300 * AUDIO_CHUNK_BYTES)
    expect(recorded.binary).toEqual(['04030201'])
    const text = store.files['audio.jsonl']!
    const size = Buffer.byteLength(text)
    // 1.44 MB of PCM from the server is 1.92 MB as base64; the client's 1.44 MB are 300 digests.
    expect(size).toBeGreaterThan(300 * AUDIO_CHUNK_BYTES * (4 / 3))
    expect(size).toBeLessThan(2_100_000)
    const append = cassette('audio.jsonl').decisions.find(
      (d) => (d.in as { frame: string }).frame === 'input_audio_buffer.append',
    )
    expect((append!.in as { message: unknown }).message).toEqual({
      type: 'input_audio_buffer.append',
      audio: { sha256: expect.stringMatching(/^[0-9a-f]{32}$/), bytes: AUDIO_CHUNK_BYTES },
    })
  })

  it('prices its audio tokens at the audio rate of the model it ran', async () => {
    const root = mkdtempSync(join(tmpdir(), 'agent-tape-realtime-'))
    writeFileSync(join(root, 'audio.jsonl'), store.files['audio.jsonl']!)
    const shown = (await runCli(['show', 'audio.jsonl'], root)).stdout.split('\n').map((line) => line.trim())
    // 120 text tokens in and 30 out, and 300 of audio each way (the fake counts a token a chunk):
    // gpt-realtime's text at $4 and $16 per million, its audio at $32 and $64.
    expect(shown).toContain('tokens     420 in / 330 out')
    expect(shown).toContain(`cost       ${dollars(120 * 4 + 30 * 16 + 300 * 32 + 300 * 64)}`)
    expect(shown).toContainEqual(expect.stringMatching(/^answer +streamed · 101 · 420 in \/ 330 out tokens/))
  })

  it('replays the audio and the binary frame with no connection', async () => {
    const before = server.connections
    const run = await runTaped(store, 'audio.jsonl', 'replay', audioSession(300))
    expect(run.failure).toBeUndefined()
    expect(run.result).toEqual(recorded)
    expect(server.connections).toBe(before)
  })

  it('misses at the chunk whose audio changed, by its digest', async () => {
    const run = await runTaped(store, 'audio.jsonl', 'replay', audioSession(300, 150))
    expect(isReplayMiss(run.failure)).toBe(true)
    const message = run.failure!.message
    expect(message).toContain('websocket input_audio_buffer.append (openai-realtime)')
    expect(message).toMatch(/message\.audio\.sha256: "[0-9a-f]{32}" → "[0-9a-f]{32}"/)
  })
})

describe('a session that ends early', () => {
  const leaving = session(async (rt, next) => {
    rt.send({ type: 'session.update', session: { type: 'realtime', instructions: 'Hi.' } } as never)
    await next('session.updated')
    rt.send({ type: 'response.create' })
    rt.close({ code: 1000, reason: 'done' })
  })

  it('closed by the client before the answer replays as recorded', async () => {
    const recording = await runTaped(store, 'left.jsonl', 'update', leaving)
    expect(recording.failure).toBeUndefined()
    expect(recording.result!.close?.code).toBe(1000)
    const replay = await runTaped(store, 'left.jsonl', 'replay', leaving)
    expect(replay.failure).toBeUndefined()
    expect(replay.result!.close).toEqual(recording.result!.close)
  })
})

describe('fail closed', () => {
  it("holds a turn to a drift run's budget as a model request: refused, never sent, the client told", async () => {
    const asked: [string, boolean][] = []
    const refusal = new AgentTapeError('ERR_TAPE_BUDGET', {
      what: 'Not sent: the model request at step 1 is over the budget',
      why: 'the budget is spent',
      fix: 'Raise the budget',
    })
    const run = await runTaped(store, 'budget.jsonl', 'update', textSession('Be brief.'), {
      liveGate: (decision): LiveGateAnswer => {
        asked.push([decision.key.split(':')[0]!, decision.asksModel])
        return decision.asksModel ? { refused: refusal } : {}
      },
    })
    // Asked of each decision; only the turn (response.create) is a model request, and it is refused.
    expect(asked).toEqual([
      ['websocket', false],
      ['websocket', false],
      ['websocket', false],
      ['websocket', true],
    ])
    expect(run.failure).toBe(refusal)
    expect(run.state.divergences).toHaveLength(1)
    // The client hears it in the API's error event, then the close; the model never answered.
    expect(run.result!.errors).toEqual([
      expect.stringMatching(/^\[agent-tape\] Not sent: .* code=ERR_TAPE_BUDGET /),
    ])
    expect(run.result!.close).toEqual({
      code: 1011,
      reason: "agent-tape: not sent, over the drift run's budget (see the test failure)",
    })
    expect(run.result!.calls).toEqual([])
    expect(store.files['budget.jsonl']).toBeUndefined()
  })

  it('refuses a session no cassette answers, and reaches no server', async () => {
    const before = server.connections
    const run = await runTaped(store, 'left.jsonl', 'replay', textSession('Be brief.'))
    expect(isReplayMiss(run.failure)).toBe(true)
    expect(run.failure!.message).toContain('websocket session.update (openai-realtime)')
    expect(server.connections).toBe(before)
  })

  it('refuses to record a replayed session from its first changed message (resume)', async () => {
    const before = server.connections
    const run = await runTaped(store, 'text.jsonl', 'resume', textSession('Be concise.'))
    expect(run.failure?.message).toContain(
      `Cannot record the rest of the WebSocket session to wss://127.0.0.1:${new URL(server.baseURL).port}/v1/realtime?model=gpt-realtime from its first changed message`,
    )
    expect(run.result?.close?.code).toBe(1011)
    expect(server.connections).toBe(before)
  })

  it('passes the session to the server, untaped, in live mode', async () => {
    const before = server.connections
    const run = await runTaped(store, 'live-mode.jsonl', 'live', textSession('Be brief.'))
    expect(run.failure).toBeUndefined()
    expect(run.result!.text).toBe('In Paris it is 21 degrees.')
    expect(server.connections).toBe(before + 1)
    expect(store.files['live-mode.jsonl']).toBeUndefined()
  })

  it('refuses the handshake of a session whose URL changed, naming it', async () => {
    const before = server.connections
    const run = await runTaped(store, 'text.jsonl', 'replay', async () => {
      const rt = new OpenAIRealtimeWS({ model: 'gpt-realtime-mini', options: { ca: server.ca } }, client)
      const errors: string[] = []
      rt.on('error', (error) => errors.push(error.message))
      await new Promise((resolve) => rt.socket.once('close', resolve))
      return errors
    })
    expect(isReplayMiss(run.failure)).toBe(true)
    expect(run.failure!.message).toContain('websocket open (openai-realtime)')
    expect(run.failure!.message).toContain(
      'url: "/v1/realtime?model=gpt-realtime" → "/v1/realtime?model=gpt-realtime-mini"',
    )
    expect(run.result).toEqual(['Unexpected server response: 500'])
    expect(server.connections).toBe(before)
  })

  it('refuses to write a secret a frame carries', async () => {
    const leak = `sk-proj-${'Op3nAiK3y'.repeat(5)}`
    const error = await runTaped(store, 'leak.jsonl', 'update', textSession(`Use the key ${leak}.`)).catch(
      (e: unknown) => e,
    )
    expect(isSecretLeakError(error)).toBe(true)
    expect((error as Error).message).toContain(
      'decision #2 (websocket session.update (openai-realtime), step 0) out.frames[1].text contains an OpenAI-style API key',
    )
    expect(store.files['leak.jsonl']).toBeUndefined()
  })
})

it('ends a session the test leaves open with its tape: recorded so far, replayed the same', async () => {
  const leftOpen = async () => {
    const rt = new OpenAIRealtimeWS({ model: 'gpt-realtime', options: { ca: server.ca } }, client)
    const types: string[] = []
    rt.on('event', (event) => types.push(event.type))
    await new Promise((resolve) => rt.socket.once('open', resolve))
    rt.send({ type: 'session.update', session: { type: 'realtime', instructions: 'Open.' } } as never)
    await new Promise<void>((resolve) => rt.on('session.updated', () => resolve()))
    return { rt, types }
  }
  const recording = await runTaped(store, 'open.jsonl', 'update', leftOpen)
  expect(recording.failure).toBeUndefined()
  expect(recording.state.recorded).toBe(2)
  const replay = await runTaped(store, 'open.jsonl', 'replay', leftOpen)
  expect(replay.failure).toBeUndefined()
  expect(replay.result!.types).toEqual(recording.result!.types)
  for (const run of [recording, replay])
    await new Promise((resolve) =>
      run.result!.rt.socket.readyState === 3 ? resolve(0) : run.result!.rt.socket.once('close', resolve),
    )
})

describe('limits and pacing', () => {
  const update = (instructions: string) =>
    session(async (rt, next) => {
      rt.send({ type: 'session.update', session: { type: 'realtime', instructions } } as never)
      await next('session.updated')
      rt.close()
    })

  it('replays instantly by default, and with the recorded pacing when asked', async () => {
    await runTaped(store, 'slow.jsonl', 'update', update('Take your time.'))
    const timed = async () => {
      const started = Date.now()
      const run = await runTaped(store, 'slow.jsonl', 'replay', update('Take your time.'))
      expect(run.failure).toBeUndefined()
      return Date.now() - started
    }
    expect(await timed()).toBeLessThan(SLOW_MS / 2)
    installHttpBoundary({ timing: 'recorded' })
    try {
      expect(await timed()).toBeGreaterThanOrEqual(SLOW_MS * 0.8)
    } finally {
      installHttpBoundary({ timing: 'instant' })
    }
  })

  it('refuses a frame over the limit with a message, and closes the session', async () => {
    const large = session(async (rt, next) => {
      rt.send({ type: 'input_audio_buffer.append', audio: Buffer.alloc(4_000_000).toString('base64') })
      await next('never')
    })
    const run = await runTaped(store, 'large.jsonl', 'update', large)
    expect(run.failure?.message).toBe(
      `[agent-tape] Refused a WebSocket frame of 5.1 MB from the client of wss://127.0.0.1:${new URL(server.baseURL).port}/v1/realtime?model=gpt-realtime: a cassette keeps frames up to 4.0 MB, and the session was closed rather than recorded without it. Send large payloads in smaller messages (audio in chunks of a fraction of a second, as the realtime APIs expect), or leave this session out of the tape by adding its host to allowHosts.`,
    )
    expect(run.result!.close).toEqual({ code: 1009, reason: 'agent-tape: frame too large for the cassette' })
  })
})

describe('the handshake', () => {
  it('refused by the server (401) replays as that refusal, with no connection', async () => {
    const refused = async () => {
      const other = new OpenAI({ apiKey: REJECTED_KEY, baseURL: server.baseURL })
      const rt = new OpenAIRealtimeWS({ model: 'gpt-realtime', options: { ca: server.ca } }, other)
      const errors: string[] = []
      rt.on('error', (error) => errors.push(error.message))
      await new Promise((resolve) => rt.socket.once('close', resolve))
      return errors
    }
    const recording = await runTaped(store, 'refused.jsonl', 'update', refused)
    expect(recording.failure).toBeUndefined()
    expect(recording.error).toBeUndefined()
    expect(recording.result).toEqual(['Unexpected server response: 401'])
    expect(cassette('refused.jsonl').decisions[0]!.out).toMatchObject({ status: 401 })
    const before = server.connections
    const replay = await runTaped(store, 'refused.jsonl', 'replay', refused)
    expect(replay.failure).toBeUndefined()
    expect(replay.result).toEqual(recording.result)
    expect(server.connections).toBe(before)
  })

  it("records and replays OpenAIRealtimeWebSocket on undici's WebSocket (the global one of Node 22), the key in a subprotocol", async () => {
    const seen = async () => {
      const rt = new OpenAIRealtimeWebSocket({ model: 'gpt-realtime' }, client)
      const types: string[] = []
      rt.on('event', (event) => types.push(event.type))
      rt.on('session.updated', () => rt.close())
      rt.socket.addEventListener('open', () =>
        rt.send({ type: 'session.update', session: { type: 'realtime', instructions: 'Hi.' } } as never),
      )
      await new Promise((resolve) => rt.socket.addEventListener('close', resolve))
      return types
    }
    const global = globalThis as { WebSocket?: unknown }
    const own = global.WebSocket
    global.WebSocket = UndiciWebSocket
    // The recording's own connection trusts the fake's certificate as undici's client would be told to.
    const verify = process.env.NODE_TLS_REJECT_UNAUTHORIZED
    try {
      process.env.NODE_TLS_REJECT_UNAUTHORIZED = '0'
      const recording = await runTaped(store, 'global.jsonl', 'update', seen)
      if (verify === undefined) delete process.env.NODE_TLS_REJECT_UNAUTHORIZED
      else process.env.NODE_TLS_REJECT_UNAUTHORIZED = verify
      expect(recording.failure).toBeUndefined()
      expect(recording.result).toEqual(['session.created', 'session.updated'])
      expect(server.handshakes.at(-1)!.headers['sec-websocket-protocol']).toBe(
        `realtime,openai-insecure-api-key.${API_KEY}`,
      )
      expect(cassette('global.jsonl').decisions[0]!.in).toMatchObject({ protocols: ['realtime'] })
      expect(store.files['global.jsonl']).not.toContain(API_KEY)
      const before = server.connections
      const replay = await runTaped(store, 'global.jsonl', 'replay', seen)
      expect(replay.failure).toBeUndefined()
      expect(replay.result).toEqual(recording.result)
      expect(server.connections).toBe(before)
    } finally {
      global.WebSocket = own
      if (verify === undefined) delete process.env.NODE_TLS_REJECT_UNAUTHORIZED
      else process.env.NODE_TLS_REJECT_UNAUTHORIZED = verify
    }
  })
})
