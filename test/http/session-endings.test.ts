import { createHook } from 'node:async_hooks'
import { createServer } from 'node:net'
import { createMemoryStore } from '@agent-tape/core'
import { installHttpBoundary } from '@agent-tape/http'
import { GoogleGenAI, Modality } from '@google/genai'
import { WebSocket as UndiciWebSocket } from 'undici7'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { WebSocket } from 'ws'
import { liveSession } from '../support/live-client.js'
import { type LiveServer, startLiveServer } from '../support/live-server.js'
import { runTaped } from '../support/tape-run.js'

// However a taped session ends, it leaves no timer pending on either end once the client has seen
// it close: the `ws` package's 30 s close timer, on the client's side or the boundary's, pends
// until its socket has closed (one left behind kept a Jest run from exiting for 30 s after a
// session closed at a miss; the sockets themselves are socket-pair.test.ts's, in the package).
// Each ending is recorded against a loopback server that speaks Gemini's Live API and replayed,
// through the `ws` client and undici's WebSocket (the global one of Node 22 and later) alike.
const boundary = installHttpBoundary()
const store = createMemoryStore()
const PATH = '/ws/google.ai.generativelanguage.v1beta.GenerativeService.BidiGenerateContent'
let server: LiveServer
/** A model endpoint where nothing listens: a session to it fails to connect. */
let deadUrl: string

beforeAll(async () => {
  server = await startLiveServer()
  boundary.addModelEndpoints(server.url)
  const probe = createServer()
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve))
  const { port } = probe.address() as { port: number }
  await new Promise((resolve) => probe.close(resolve))
  deadUrl = `http://127.0.0.1:${port}`
  boundary.addModelEndpoints(deadUrl)
})
afterAll(() => server.close())

/**
 * Watches the timers made from now on, until `left` is called: `left` resolves with where each
 * one still pending was made, once the events already under way have run (each end closing its
 * socket clears its close timer), or after two seconds, far less than a close timer's 30.
 */
function watchTimers(): { left(): Promise<string[]> } {
  const made = new Map<number, { timer: NodeJS.Timeout; at: string }>()
  const hook = createHook({
    init(id, type, _trigger, resource) {
      if (type === 'Timeout')
        made.set(id, { timer: resource as NodeJS.Timeout, at: new Error('made').stack ?? '' })
    },
    destroy(id) {
      made.delete(id)
    },
  }).enable()
  const pending = () => [...made.values()].filter(({ timer }) => timer.hasRef()).map(({ at }) => at)
  return {
    async left() {
      const until = Date.now() + 2000
      while (pending().length > 0 && Date.now() < until) await new Promise((resolve) => setImmediate(resolve))
      hook.disable()
      return pending()
    },
  }
}

type Client = 'ws' | 'undici'
/** How the session ends: the client closes it, the server does (`break`), the server drops it (`cut`), or the test ends with it open. */
type Ending = 'client' | 'break' | 'cut' | 'open'

interface Conversation {
  seen: string[]
  /** Settles when the client's socket has closed. */
  closed: Promise<void>
}

/**
 * A Live session of `client`, opened at `url`: `setup` with `instruction`, then a user turn that
 * asks for `ending` (the server's `break` and `cut`), closed by the client when the turn is
 * complete, or left open. Returns once the client saw the close, or the turn for `open`.
 */
const converse =
  (client: Client, ending: Ending, instruction = 'Be brief.', url = `${server.url}${PATH}`) =>
  async (): Promise<Conversation> => {
    const address = url.replace(/^http/, 'ws')
    const ws = client === 'ws' ? new WebSocket(address) : new UndiciWebSocket(address)
    const seen: string[] = []
    let turnEnded = () => {}
    const turn = new Promise<void>((resolve) => {
      turnEnded = resolve
    })
    const closed = new Promise<void>((resolve) => {
      ws.onclose = (event: { code: number }) => {
        seen.push(`close ${event.code}`)
        turnEnded()
        resolve()
      }
    })
    ws.onerror = () => seen.push('error')
    ws.onopen = () =>
      ws.send(
        JSON.stringify({
          setup: {
            model: 'models/gemini-live-2.5-flash',
            systemInstruction: { parts: [{ text: instruction }] },
          },
        }),
      )
    ws.onmessage = (event: { data: unknown }) => {
      const message = JSON.parse(String(event.data))
      seen.push(Object.keys(message).join('+'))
      const text = ending === 'break' || ending === 'cut' ? ending : 'Hi'
      if (message.setupComplete)
        ws.send(
          JSON.stringify({
            clientContent: { turns: [{ role: 'user', parts: [{ text }] }], turnComplete: true },
          }),
        )
      if (message.serverContent?.turnComplete) turnEnded()
    }
    await turn
    // After the message's events, as an agent that awaits the answer closes.
    if (ending === 'client') ws.close(1000)
    if (ending !== 'open') await closed
    return { seen, closed }
  }

/** Runs `session` in `mode`, and expects no timer of it left once the client's socket has closed. */
async function endsClean(file: string, mode: string, session: () => Promise<Conversation>) {
  const timers = watchTimers()
  const run = await runTaped(store, file, mode, session)
  expect(run.error).toBeUndefined()
  await run.result!.closed
  expect(await timers.left(), `timers left by the ${mode} of ${file}`).toEqual([])
  return run
}

describe.each<Client>(['ws', 'undici'])('through the %s client', (client) => {
  it.each<[Ending, string]>([
    ['client', 'close 1000'],
    ['break', 'close 1011'],
    ['cut', 'close 1006'],
    ['open', 'close 1006'],
  ])(
    'a session that ends by %s closes both ends with no timer left, recorded and replayed',
    async (ending, close) => {
      const file = `${client}-${ending}.jsonl`
      const recording = await endsClean(file, 'update', converse(client, ending))
      expect(recording.failure).toBeUndefined()
      expect(recording.result!.seen.at(-1)).toBe(close)
      const before = server.connections
      const replay = await endsClean(file, 'replay', converse(client, ending))
      expect(replay.failure).toBeUndefined()
      expect(replay.result!.seen).toEqual(recording.result!.seen)
      expect(server.connections).toBe(before)
    },
  )

  it('a message that misses closes the session (1011) with no timer left on either end', async () => {
    const file = `${client}-miss.jsonl`
    await endsClean(file, 'update', converse(client, 'client'))
    const missed = await endsClean(file, 'replay', converse(client, 'client', 'Be concise.'))
    expect(missed.failure?.message).toContain('websocket setup (gemini-live)')
    expect(missed.result!.seen).toEqual(['close 1011'])
  })

  it('a handshake refused at a miss, and one that failed to connect, leave no timer either', async () => {
    await endsClean(`${client}-refused.jsonl`, 'update', converse(client, 'client'))
    const refused = await endsClean(
      `${client}-refused.jsonl`,
      'replay',
      converse(client, 'client', 'Be brief.', `${server.url}${PATH}?alt=other`),
    )
    expect(refused.failure?.message).toContain('websocket open')
    expect(refused.result!.seen).toEqual(['error', expect.stringMatching(/^close 10(06|15)$/)])
    const file = `${client}-unreachable.jsonl`
    const failed = await endsClean(
      file,
      'update',
      converse(client, 'client', 'Be brief.', `${deadUrl}${PATH}`),
    )
    expect(failed.result!.seen).toEqual(['error', 'close 1006'])
    const replayed = await endsClean(
      file,
      'replay',
      converse(client, 'client', 'Be brief.', `${deadUrl}${PATH}`),
    )
    expect(replayed.failure).toBeUndefined()
    expect(replayed.result!.seen).toEqual(failed.result!.seen)
  })
})

it("closes both ends of ai.live.connect's session missed at setup, with no timer left", async () => {
  const ai = new GoogleGenAI({ apiKey: 'live-key-0123456789', httpOptions: { baseUrl: server.url } })
  const session = (systemInstruction: string) => async (): Promise<Conversation> => {
    const seen = await liveSession(
      () => ai,
      { responseModalities: [Modality.TEXT], systemInstruction },
      async (s, next) => {
        s.sendClientContent({ turns: [{ role: 'user', parts: [{ text: 'Hi' }] }], turnComplete: true })
        await next('turnComplete')
        s.close()
      },
    )()
    return { seen: [...seen.kinds, `close ${seen.closed}`], closed: Promise.resolve() }
  }
  const recording = await endsClean('sdk.jsonl', 'update', session('Be brief.'))
  expect(recording.result!.seen.at(-1)).toBe('close 1005')
  const missed = await endsClean('sdk.jsonl', 'replay', session('Be concise.'))
  expect(missed.failure?.message).toContain('websocket setup (gemini-live)')
  expect(missed.result!.seen).toEqual(['close 1011'])
})
