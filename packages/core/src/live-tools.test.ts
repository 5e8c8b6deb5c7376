import { describe, expect, it } from 'vitest'
import { createMemoryStore } from './cassette-store.js'
import { isAgentTapeError } from './errors.js'
import { openTape } from './open-tape.js'
import { runWithTape } from './tape-context.js'

const PATH = '__cassettes__/weather.jsonl'

/** A two-step agent: the model asks for the weather, the tool answers, the model words it. */
async function agent(
  tape: Awaited<ReturnType<typeof openTape>>,
  weather: (city: string) => Promise<unknown>,
  /** How the result goes back to the model: as JSON text (chat APIs), or as a structure (Gemini's `functionResponse`). */
  quote: (result: unknown) => unknown = JSON.stringify,
) {
  const tools = tape.tools({ weather })
  await tape.call(
    'llm',
    { body: { messages: [{ role: 'user', content: 'Weather in Paris?' }] } },
    async () => ({
      call: 'weather',
    }),
  )
  const result = await tools.weather('Paris')
  return tape.call(
    'llm',
    { body: { messages: [{ role: 'tool', content: quote(result) }] } },
    async () => `It is ${(result as { tempC: number }).tempC}°C.`,
  )
}

async function recorded(
  weather: (city: string) => Promise<unknown>,
  extra = {},
  quote: (result: unknown) => unknown = JSON.stringify,
) {
  const store = createMemoryStore()
  const tape = await openTape({ id: 'weather', cassettePath: PATH, store, mode: 'auto', env: {}, ...extra })
  await runWithTape(tape, () => agent(tape, weather, quote))
  await tape.finish()
  const open = () =>
    openTape({
      id: 'weather',
      cassettePath: PATH,
      store,
      mode: 'live-tools',
      env: {},
      rerecordCommand: 'rerecord',
      ...extra,
    })
  return { store, open }
}

describe('live-tools mode', () => {
  it('passes when the live tool returns what was recorded, and writes nothing', async () => {
    const { store, open } = await recorded(async () => ({ city: 'Paris', tempC: 18 }))
    const before = await store.read(PATH)
    let calls = 0
    const tape = await open()
    const answer = await runWithTape(tape, () =>
      agent(tape, async () => {
        calls++
        return { city: 'Paris', tempC: 18 }
      }),
    )
    const state = await tape.finish()
    expect(calls).toBe(1)
    expect(answer).toBe('It is 18°C.')
    expect(state).toMatchObject({ status: 'clean', replayed: 3, drifted: [], written: false })
    expect(await store.read(PATH)).toBe(before)
  })

  it('fails with a drift report when the upstream changed, and replays the model on the recorded result', async () => {
    const { open } = await recorded(async () => ({ city: 'Paris', tempC: 18, sky: 'light rain' }))
    const tape = await open()
    const answer = await runWithTape(tape, () =>
      agent(tape, async () => ({ city: 'Paris', tempC: 21, sky: 'sunny' })),
    )
    const state = await tape.finish()
    // The run went on with the recorded result: the model decisions after it still replayed.
    expect(answer).toBe('It is 18°C.')
    expect(state.status).toBe('diverged')
    expect(state.drifted).toEqual(['step 1, tool "weather"'])
    const failure = tape.failure()!
    expect(isAgentTapeError(failure) && failure.code).toBe('ERR_TAPE_DRIFT')
    expect(failure.message).toContain(
      '[agent-tape] Tool drift at step 1, tool "weather": run live, the tool returned something other than its recording. If its upstream changed for good, re-record this test: rerecord.',
    )
    expect(failure.message).toContain('  args      ["Paris"]')
    expect(failure.message).toContain('    result.sky: "light rain" → "sunny"')
    expect(failure.message).toContain('    result.tempC: 18 → 21')
    expect(failure.message).toContain(
      'The model would now see a different input: this result is part of the next model request (step 2), where the recording stops being able to answer.',
    )
  })

  it('finds a result the next model request quotes as a structure, not as text', async () => {
    const structured = (result: unknown) => ({ functionResponse: { name: 'weather', response: result } })
    const { open } = await recorded(async () => ({ city: 'Paris', tempC: 18 }), {}, structured)
    const tape = await open()
    await runWithTape(tape, () => agent(tape, async () => ({ city: 'Paris', tempC: 21 }), structured))
    await tape.finish()
    expect(tape.failure()!.message).toContain(
      'The model would now see a different input: this result is part of the next model request (step 2), where the recording stops being able to answer.',
    )
  })

  it('reports a tool that threw while recording and now answers, and the other way round', async () => {
    const store = createMemoryStore()
    const rec = await openTape({ id: 'w', cassettePath: PATH, store, mode: 'auto', env: {} })
    const tools = rec.tools({
      lookup: async () => {
        throw new Error('upstream 503')
      },
    })
    await tools.lookup().catch(() => {})
    await rec.finish()
    const live = await openTape({ id: 'w', cassettePath: PATH, store, mode: 'live-tools', env: {} })
    const error = await live
      .tools({ lookup: async () => ({ ok: true }) })
      .lookup()
      .catch((e: Error) => e)
    // The recorded outcome is what the run gets; the drift is what fails it.
    expect((error as Error).message).toBe('upstream 503')
    await live.finish()
    expect(live.failure()?.message).toContain('error: {"name":"Error","message":"upstream 503"} → (absent)')
    expect(live.failure()?.message).toContain('result: (absent) → {"ok":true}')
  })

  it('runs the stub of an irreversible tool, never its real function', async () => {
    let real = 0
    const refund = async () => {
      real++
      return { refunded: true }
    }
    const stub = async () => ({ refunded: true, stub: true })
    const store = createMemoryStore()
    const rec = await openTape({ id: 'r', cassettePath: PATH, store, mode: 'auto', env: {} })
    await rec.tools({ refund: { run: refund, effect: 'irreversible', stub } }).refund()
    await rec.finish()
    const live = await openTape({ id: 'r', cassettePath: PATH, store, mode: 'live-tools', env: {} })
    await live.tools({ refund: { run: refund, effect: 'irreversible', stub } }).refund()
    expect((await live.finish()).status).toBe('clean')
    expect(real).toBe(0)
  })

  it('compares through the normalizers, so ids and timestamps are not drift', async () => {
    const normalizers = [{ name: 'id', pattern: /req_[a-z0-9]+/g, replacement: '<id>' }]
    const { open } = await recorded(async () => ({ id: 'req_abc123', tempC: 18 }), { normalizers })
    const tape = await open()
    await runWithTape(tape, () => agent(tape, async () => ({ id: 'req_zzz999', tempC: 18 })))
    expect((await tape.finish()).status).toBe('clean')
  })

  it('needs a cassette, as replay does', async () => {
    const error = await openTape({
      id: 'x',
      cassettePath: PATH,
      store: createMemoryStore(),
      mode: 'live-tools',
      env: {},
    }).catch((e: Error) => e)
    expect((error as Error).message).toContain('does not exist, and mode "live-tools" never records')
  })

  it('masks a key in a live result before it cuts the report line, wherever the cut falls', async () => {
    const key = `sk-proj-${'rylLde1Xu6FUq9Wm'.repeat(6)}`
    for (const lead of [40, 60, 66, 70, 75]) {
      const { open } = await recorded(async () => ({ city: 'Paris', tempC: 18 }))
      const tape = await open()
      const note = `${'x'.repeat(lead)} ${key}`
      await runWithTape(tape, () => agent(tape, async () => ({ city: 'Paris', tempC: 18, note })))
      await tape.finish().catch(() => undefined)
      const message = tape.failure()!.message
      expect(message).toContain('Tool drift')
      for (let at = 4; at + 5 <= key.length; at++) expect(message).not.toContain(key.slice(at, at + 5))
    }
  })
})
