import { describe, expect, it } from 'vitest'
import { parseCassette } from './cassette-format.js'
import { createMemoryStore } from './cassette-store.js'
import { isReplayMiss } from './divergence.js'
import { hashEnvValue } from './env-hash.js'
import { AgentTapeError } from './errors.js'
import { openTape } from './open-tape.js'
import type { TapeOptions } from './tape-options.js'

const PATH = '__cassettes__/t.jsonl'
const RERECORD = 'AGENT_TAPE_MODE=update vitest run t.test.ts -t t'

function setup() {
  const store = createMemoryStore()
  const open = (mode: string, extra: Partial<TapeOptions> = {}) =>
    openTape({ id: 't', cassettePath: PATH, store, mode, env: {}, rerecordCommand: RERECORD, ...extra })
  return { store, open }
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

/** Runs the body once while recording and returns the tape opener for replay. */
async function recorded(
  body: (tape: Awaited<ReturnType<ReturnType<typeof setup>['open']>>) => Promise<unknown>,
) {
  const s = setup()
  const tape = await s.open('auto')
  await body(tape)
  await tape.finish()
  return s
}

describe('recording and replaying', () => {
  it('replays a tool error with the same name and message', async () => {
    const boom = async () => {
      const error = new Error('invoice INV-9 not found')
      error.name = 'NotFoundError'
      throw error
    }
    const { open } = await recorded(async (tape) => {
      await expect(tape.tool('lookup_invoice', { id: 'INV-9' }, boom)).rejects.toThrow(
        'invoice INV-9 not found',
      )
    })
    const replay = await open('replay')
    let calls = 0
    const error = await replay.tool('lookup_invoice', { id: 'INV-9' }, () => calls++).catch((e: Error) => e)
    expect(error).toBeInstanceOf(Error)
    expect({ name: (error as Error).name, message: (error as Error).message }).toEqual({
      name: 'NotFoundError',
      message: 'invoice INV-9 not found',
    })
    expect(calls).toBe(0)
    expect((await replay.finish()).status).toBe('clean')
  })

  it('gives the Nth identical request the Nth recorded output (FIFO per key)', async () => {
    let n = 0
    const { open } = await recorded(async (tape) => {
      for (let i = 0; i < 3; i++) await tape.call('search', { q: 'same' }, () => `result ${++n}`)
    })
    const replay = await open('replay')
    const results = []
    for (let i = 0; i < 3; i++) results.push(await replay.call('search', { q: 'same' }, () => 'live'))
    expect(results).toEqual(['result 1', 'result 2', 'result 3'])
  })

  it('replays parallel tool calls of one model turn whatever order they arrive in', async () => {
    const ids = ['a', 'b', 'c', 'd', 'e', 'f']
    const run = async (tape: Awaited<ReturnType<ReturnType<typeof setup>['open']>>, delays: number[]) => {
      await tape.call('llm', { turn: 1 }, () => ({ calls: ids }))
      return Promise.all(
        ids.map((id, i) =>
          tape.tool('fetch_doc', { id }, async () => {
            await sleep(delays[i]!)
            return `doc ${id}`
          }),
        ),
      )
    }
    const s = setup()
    const rec = await s.open('auto')
    await run(rec, [30, 1, 20, 5, 12, 0])
    await rec.finish()
    // Numbered in the order the run made them (a to f), though their timers finished in another order.
    const recordedOrder = parseCassette(s.store.files[PATH]!, PATH).decisions.map(
      (d) => (d.in as { args?: { id: string } }).args?.id,
    )
    expect(recordedOrder).toEqual([undefined, 'a', 'b', 'c', 'd', 'e', 'f'])
    for (const delays of [
      [0, 5, 10, 15, 20, 25],
      [25, 20, 15, 10, 5, 0],
      [7, 3, 9, 1, 4, 0],
    ]) {
      const tape = await s.open('replay')
      expect(await run(tape, delays)).toEqual(ids.map((id) => `doc ${id}`))
      expect((await tape.finish()).status).toBe('clean')
    }
  })

  it('replays sub-agents under Promise.all deterministically when each runs in its own lane', async () => {
    const subAgent = async (
      tape: Awaited<ReturnType<ReturnType<typeof setup>['open']>>,
      name: string,
      delay: number,
    ) => {
      const out: unknown[] = []
      for (let turn = 1; turn <= 3; turn++) {
        await sleep(delay)
        out.push(await tape.call('llm', { agent: name, turn: 'next' }, () => `${name} says ${turn}`))
        out.push(await tape.tool('note', { text: 'same text' }, () => `${name} noted ${turn}`))
      }
      return out
    }
    const run = (tape: Awaited<ReturnType<ReturnType<typeof setup>['open']>>, da: number, db: number) =>
      Promise.all([
        tape.lane('alpha', () => subAgent(tape, 'alpha', da)),
        tape.lane('beta', () => subAgent(tape, 'beta', db)),
      ])
    const s = setup()
    const rec = await s.open('auto')
    const live = await run(rec, 1, 9)
    await rec.finish()
    const lanes = parseCassette(s.store.files[PATH]!, PATH).decisions.map((d) => `${d.lane}@${d.step}`)
    expect(lanes.slice(0, 2)).toEqual(['alpha@1', 'alpha@1'])
    const replay = await s.open('replay')
    expect(await run(replay, 9, 1)).toEqual(live)
    expect((await replay.finish()).status).toBe('clean')
  })

  it('refuses two concurrent lanes with one name', async () => {
    const { open } = setup()
    const tape = await open('auto')
    const first = tape.lane('worker', () => sleep(5))
    expect(() => tape.lane('worker', () => sleep(5))).toThrow(
      '[agent-tape] Lane "worker" is already running: two concurrent lanes with one name would share a step counter, and their order would decide the keys. Give concurrent lanes distinct names, e.g. worker-1 and worker-2.',
    )
    await first
    await expect(tape.lane('worker', () => sleep(1))).resolves.toBeUndefined()
  })

  it('tool and env decisions carry the step of the latest model request', async () => {
    const { store } = await recorded(async (tape) => {
      tape.env(['HOME'])
      await tape.call('llm', { n: 1 }, () => 'a')
      await tape.tool('t', {}, () => 1)
      await tape.call('llm', { n: 2 }, () => 'b')
      await tape.tool('t', {}, () => 2)
      tape.env(['HOME'])
    })
    const steps = parseCassette(store.files[PATH]!, PATH).decisions.map((d) => `${d.kind}@${d.step}`)
    expect(steps).toEqual(['env@0', 'llm@1', 'tool@1', 'llm@2', 'tool@2', 'env@2'])
  })
})

describe('divergence', () => {
  it('keeps a miss on the tape even when the agent swallows it', async () => {
    const { open } = await recorded(async (tape) => {
      await tape.call('llm', { prompt: 'hello' }, () => 'hi')
    })
    const tape = await open('replay')
    const answer = await tape.call('llm', { prompt: 'hello!' }, () => 'live').catch(() => 'fallback')
    expect(answer).toBe('fallback')
    const state = await tape.finish()
    expect(state).toMatchObject({ status: 'diverged', missed: 1, unused: 1 })
    expect(isReplayMiss(tape.failure())).toBe(true)
    expect(state.divergences.map((d) => d.code)).toEqual(['ERR_TAPE_MISS', 'ERR_TAPE_UNUSED'])
  })

  it('fails a run that finishes with recorded decisions unused, unless opted out', async () => {
    const { open } = await recorded(async (tape) => {
      for (let i = 1; i <= 4; i++) await tape.call('llm', { turn: i }, () => i)
      await tape.tool('refund', { amount: 5 }, () => 'ok')
    })
    const tape = await open('replay')
    await tape.call('llm', { turn: 1 }, () => 0)
    await tape.call('llm', { turn: 2 }, () => 0)
    const state = await tape.finish()
    expect(state).toMatchObject({ status: 'diverged', replayed: 2, unused: 3 })
    expect(
      tape.failure()?.message,
    ).toBe(`[agent-tape] Run finished after 2 of 5 recorded decisions: 3 recorded decisions were never asked for, so the run stopped early or took another path. If the change is intended, re-record this test: ${RERECORD} (or set failOnUnused: false to allow it).

  cassette  ${PATH}

  Unused recorded decisions:
    #3 llm:11c71b7249c0f303, model request at step 3
    #4 llm:976c818bba0b0f11, model request at step 4
    #5 tool:e283c57a7ed62d26, tool "refund" at step 4`)
    const lenient = await open('replay', { failOnUnused: false })
    await lenient.call('llm', { turn: 1 }, () => 0)
    expect((await lenient.finish()).status).toBe('clean')
  })

  it('reports environment drift by hash, never storing the values', async () => {
    const env = { MODEL: 'gpt-4o', REGION: 'eu' }
    const { open, store } = await (async () => {
      const s = setup()
      const tape = await s.open('auto', { env })
      expect(tape.env(['REGION', 'MODEL'])).toEqual({ MODEL: 'gpt-4o', REGION: 'eu' })
      await tape.finish()
      return s
    })()
    expect(store.files[PATH]).not.toContain('gpt-4o')
    const salt = parseCassette(store.files[PATH]!, PATH).header.envSalt
    expect(salt).toMatch(/^[0-9a-f]{24}$/)
    // The stored hash is salted: it is not the plain sha256 of the value.
    expect(store.files[PATH]).not.toContain(hashEnvValue('gpt-4o')!)
    expect(store.files[PATH]).toContain(hashEnvValue('gpt-4o', salt)!)
    const same = await open('replay', { env })
    same.env(['MODEL', 'REGION'])
    expect((await same.finish()).status).toBe('clean')
    const drifted = await open('replay', { env: { MODEL: 'gpt-4.1' } })
    expect(drifted.env(['MODEL', 'REGION'])).toEqual({ MODEL: 'gpt-4.1', REGION: undefined })
    await drifted.finish()
    expect(
      drifted.failure()?.message,
    ).toBe(`[agent-tape] Environment drift at step 0: 2 of 2 environment values read through tape.env() differ from the recording (values are compared by hash). Restore the recorded environment, or re-record this test: ${RERECORD}.

  cassette  ${PATH}

  MODEL                changed (recorded ${hashEnvValue('gpt-4o', salt)}, now ${hashEnvValue('gpt-4.1', salt)})
  REGION               was set when recorded, now unset`)
  })

  it('salts env hashes per cassette, and keeps the salt when a re-record changes nothing', async () => {
    const env = { MODEL: 'gpt-4o' }
    const record = async (s: ReturnType<typeof setup>) => {
      const tape = await s.open('update', { env })
      tape.env(['MODEL'])
      return (await tape.finish()).written
    }
    const a = setup()
    const b = setup()
    await record(a)
    await record(b)
    const saltOf = (s: ReturnType<typeof setup>) => parseCassette(s.store.files[PATH]!, PATH).header.envSalt
    expect(saltOf(a)).not.toBe(saltOf(b))
    const before = a.store.files[PATH]
    expect(await record(a)).toBe(false)
    expect(a.store.files[PATH]).toBe(before)
  })

  it('compares the env hashes of a cassette written before salting without a salt', async () => {
    const { open, store } = setup()
    const tape = await open('auto', { env: { MODEL: 'gpt-4o' } })
    tape.env(['MODEL'])
    await tape.finish()
    const header = JSON.parse(store.files[PATH]!.split('\n')[0]!)
    const unsalted = store.files[PATH]!.split(hashEnvValue('gpt-4o', header.envSalt)!).join(
      hashEnvValue('gpt-4o')!,
    )
    store.files[PATH] = unsalted.replace(`"envSalt":"${header.envSalt}",`, '')
    const same = await open('replay', { env: { MODEL: 'gpt-4o' } })
    same.env(['MODEL'])
    expect((await same.finish()).status).toBe('clean')
    const drifted = await open('replay', { env: { MODEL: 'gpt-5' } })
    drifted.env(['MODEL'])
    expect((await drifted.finish()).status).toBe('diverged')
  })
})

describe('modes and files', () => {
  it('refuses replay without a cassette and writes nothing', async () => {
    const { open, store } = setup()
    await expect(open('replay', { env: { CI: 'true' } })).rejects.toThrow(
      `[agent-tape] No cassette for test "t": ${PATH} does not exist, and mode "replay" (CI is set) never records. Run the test locally without CI to record it (mode "auto" records missing cassettes), then commit the file.`,
    )
    expect(store.files).toEqual({})
  })

  it('rejects an unknown mode, listing the valid ones', async () => {
    const { open } = setup()
    await expect(open('record')).rejects.toThrow(
      '[agent-tape] Unknown agent-tape mode "record" (from the "mode" option): valid modes are "replay", "auto", "update", "live", "live-tools", "resume". Use one of them, or leave the mode unset for "auto" locally and "replay" in CI.',
    )
  })

  it('never writes in replay, and rewrites in update only when the recording changed', async () => {
    const { open, store } = await recorded(async (tape) => {
      await tape.call('llm', { q: 1 }, () => 'a')
    })
    const original = store.files[PATH]
    const replay = await open('replay')
    await replay.call('llm', { q: 1 }, () => 'x')
    expect(await replay.finish()).toMatchObject({ written: false, writeSkipped: 'replay' })
    const same = await open('update')
    await same.call('llm', { q: 1 }, () => 'a')
    expect(await same.finish()).toMatchObject({ written: false, writeSkipped: 'unchanged' })
    expect(store.files[PATH]).toBe(original)
    const changed = await open('update')
    await changed.call('llm', { q: 1 }, () => 'b')
    expect(await changed.finish()).toMatchObject({ written: true })
    expect(store.files[PATH]).not.toBe(original)
  })

  it('live mode runs every boundary for real and records nothing', async () => {
    const { open, store } = setup()
    const tape = await open('live')
    expect(await tape.call('llm', { q: 1 }, () => 'real')).toBe('real')
    expect(await tape.finish()).toMatchObject({
      action: 'passthrough',
      status: 'passthrough',
      written: false,
    })
    expect(store.files).toEqual({})
  })

  it('reports each normalizer that fires and keys the normalized input', async () => {
    const normalizers = [{ name: 'today', pattern: /\d{4}-\d{2}-\d{2}/g, replacement: '<date>' }]
    const { open, store } = setup()
    const rec = await open('auto', { normalizers })
    await rec.call('llm', { prompt: 'Today is 2026-11-29.' }, () => 'ok')
    expect((await rec.finish()).normalizations).toEqual({ today: 1 })
    expect(store.files[PATH]).toContain('Today is <date>.')
    const replay = await open('replay', { normalizers })
    expect(await replay.call('llm', { prompt: 'Today is 2026-12-01.' }, () => 'live')).toBe('ok')
    expect((await replay.finish()).status).toBe('clean')
  })
})

describe('tools', () => {
  it('refuses an irreversible tool without a stub at definition time', async () => {
    const tape = await setup().open('auto')
    expect(() => tape.tools({ refund: { run: async () => 1, effect: 'irreversible' } })).toThrow(
      `[agent-tape] Tool "refund" is declared irreversible without a stub: an irreversible tool (a payment, a deploy, a message send) must never run for real from a test, and while recording agent-tape runs its stub instead. Add a stub with the same signature: { run: refund, effect: 'irreversible', stub: fakeRefund }.`,
    )
  })

  it('runs the stub while recording, and neither stub nor tool on replay', async () => {
    const calls: string[] = []
    const defs = {
      refund: {
        run: async (id: string, amount: number) => {
          calls.push(`real ${id} ${amount}`)
          return 'real'
        },
        effect: 'irreversible' as const,
        stub: async (id: string, amount: number) => {
          calls.push(`stub ${id} ${amount}`)
          return `refunded ${amount}`
        },
      },
      lookup: (id: string) => ({ id, total: 4200 }),
    }
    const { open } = setup()
    const rec = await open('auto')
    const tools = rec.tools(defs)
    expect(await tools.refund('pay_1', 42)).toBe('refunded 42')
    expect(await tools.lookup('INV-1')).toEqual({ id: 'INV-1', total: 4200 })
    await rec.finish()
    expect(calls).toEqual(['stub pay_1 42'])
    const replay = (await open('replay')).tools(defs)
    expect(await replay.refund('pay_1', 42)).toBe('refunded 42')
    expect(calls).toEqual(['stub pay_1 42'])
  })
})

describe('a recording a boundary refused', () => {
  it('fails the tape with the refusal and writes nothing, not even the decisions before it', async () => {
    const { store, open } = setup()
    const tape = await open('auto')
    await tape.call('tool', { name: 'lookup' }, () => 'found')
    const refusal = new AgentTapeError('ERR_TAPE_NO_KEY', {
      what: 'Cannot record',
      why: 'no key',
      fix: 'Set one',
    })
    tape.refuseRecording(refusal)
    const state = await tape.finish()
    expect(state).toMatchObject({ status: 'recorded', recorded: 1, written: false, writeSkipped: 'refused' })
    expect(tape.failure()).toBe(refusal)
    expect(store.files[PATH]).toBeUndefined()
  })

  it('leaves a cassette it replays as it is', async () => {
    const s = await recorded((tape) => tape.call('tool', { name: 'lookup' }, () => 'found'))
    const before = s.store.files[PATH]
    const tape = await s.open('auto')
    await tape.call('tool', { name: 'lookup' }, () => 'again')
    tape.refuseRecording(new AgentTapeError('ERR_TAPE_NO_KEY', 'refused'))
    expect(await tape.finish()).toMatchObject({ action: 'replay', written: false })
    expect(s.store.files[PATH]).toBe(before)
  })
})
