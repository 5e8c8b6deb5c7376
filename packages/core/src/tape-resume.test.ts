import { describe, expect, it } from 'vitest'
import { parseCassette } from './cassette-format.js'
import { createMemoryStore } from './cassette-store.js'
import { isAgentTapeError } from './errors.js'
import { resolveMode, type TapeMode } from './modes.js'
import { openTape } from './open-tape.js'

const PATH = '__cassettes__/agent.jsonl'

/**
 * A run of `steps` model steps, each followed by a tool call, in lane `lane` when one is given;
 * `prompt(step)` is the prompt of a step. Counts the calls that ran for real.
 */
async function runAgent(
  tape: Awaited<ReturnType<typeof openTape>>,
  prompt: (step: number) => string,
  live: string[],
  steps = 6,
): Promise<string[]> {
  const answers: string[] = []
  for (let step = 1; step <= steps; step++) {
    const answer = await tape.call('llm', { prompt: prompt(step), seen: answers.length }, () => {
      live.push(`llm ${step}`)
      return `answer ${step} to ${prompt(step)}`
    })
    answers.push(answer)
    await tape.call('tool', { name: 'note', args: [step] }, () => {
      live.push(`tool ${step}`)
      return `noted ${step}`
    })
  }
  return answers
}

const original = (step: number) => `do step ${step}`
const changedAt4 = (step: number) => (step === 4 ? 'do step 4 differently' : original(step))

async function open(store: ReturnType<typeof createMemoryStore>, mode: TapeMode, env = {}) {
  return openTape({ id: 'agent', cassettePath: PATH, store, mode, env })
}

async function recorded(): Promise<ReturnType<typeof createMemoryStore>> {
  const store = createMemoryStore()
  const tape = await open(store, 'update')
  await runAgent(tape, original, [])
  await tape.finish()
  return store
}

describe('resume mode', () => {
  it('replays the decisions before the first miss and records that one and every one after it', async () => {
    const store = await recorded()
    const before = store.files[PATH]!
    const tape = await open(store, 'resume')
    const live: string[] = []
    const answers = await runAgent(tape, changedAt4, live)
    const state = await tape.finish()

    expect(live).toEqual(['llm 4', 'tool 4', 'llm 5', 'tool 5', 'llm 6', 'tool 6'])
    expect(answers[3]).toBe('answer 4 to do step 4 differently')
    expect(state).toMatchObject({
      action: 'record',
      status: 'recorded',
      written: true,
      replayed: 6,
      recorded: 6,
    })
    const after = store.files[PATH]!
    // The decisions of steps 1 to 3 are the lines they were, byte for byte.
    expect(after.split('\n').slice(1, 7)).toEqual(before.split('\n').slice(1, 7))
    expect(after.split('\n').slice(7, 8)).not.toEqual(before.split('\n').slice(7, 8))
    const cassette = parseCassette(after, PATH)
    expect(cassette.header.rerecordedFrom).toEqual({ seq: 7, step: 4, kept: 6 })
    expect(cassette.decisions).toHaveLength(12)
  })

  it('gives a cassette that replays clean', async () => {
    const store = await recorded()
    const resumed = await open(store, 'resume')
    await runAgent(resumed, changedAt4, [])
    await resumed.finish()
    const replay = await open(store, 'replay')
    const live: string[] = []
    await runAgent(replay, changedAt4, live)
    const state = await replay.finish()
    expect(live).toEqual([])
    expect(state).toMatchObject({ status: 'clean', replayed: 12, missed: 0, unused: 0 })
  })

  it('runs a decision live after the switch even when the cassette holds one with its key', async () => {
    const store = await recorded()
    const tape = await open(store, 'resume')
    const live: string[] = []
    // Step 2's prompt changes, and the tool call after it is the recorded one, key for key.
    await runAgent(tape, (step) => (step === 2 ? 'changed' : original(step)), live, 2)
    await tape.finish()
    expect(live).toEqual(['llm 2', 'tool 2'])
  })

  it('leaves the cassette untouched, byte for byte, when the whole run matches', async () => {
    const store = await recorded()
    const before = store.files[PATH]
    const tape = await open(store, 'resume')
    const live: string[] = []
    await runAgent(tape, original, live)
    const state = await tape.finish()
    expect(live).toEqual([])
    expect(state).toMatchObject({ status: 'clean', written: false, writeSkipped: 'unchanged', replayed: 12 })
    expect(store.files[PATH]).toBe(before)
  })

  it('fails on an environment read that drifted, as a replay does, writing nothing', async () => {
    const store = createMemoryStore()
    const first = await openTape({
      id: 'agent',
      cassettePath: PATH,
      store,
      mode: 'update',
      env: { FLAG: 'a' },
    })
    first.env(['FLAG'])
    await runAgent(first, original, [], 1)
    await first.finish()
    const before = store.files[PATH]
    const tape = await openTape({
      id: 'agent',
      cassettePath: PATH,
      store,
      mode: 'resume',
      env: { FLAG: 'b' },
    })
    tape.env(['FLAG'])
    await runAgent(tape, original, [], 1)
    const state = await tape.finish()
    expect(state).toMatchObject({ status: 'diverged', written: false })
    expect(tape.failure()?.code).toBe('ERR_TAPE_ENV_DRIFT')
    expect(store.files[PATH]).toBe(before)
  })

  it('drops the recorded decisions a shorter run no longer asks for', async () => {
    const store = await recorded()
    const tape = await open(store, 'resume')
    const live: string[] = []
    await runAgent(tape, original, live, 4)
    const state = await tape.finish()
    expect(live).toEqual([])
    expect(state).toMatchObject({ written: true, unused: 0 })
    const cassette = parseCassette(store.files[PATH]!, PATH)
    expect(cassette.decisions).toHaveLength(8)
    // Nothing was recorded live: the header names no step it was re-recorded from.
    expect(cassette.header.rerecordedFrom).toBeUndefined()
  })

  it('switches each lane at its own first miss', async () => {
    const store = createMemoryStore()
    const lanes = async (tape: Awaited<ReturnType<typeof openTape>>, changed: boolean, live: string[]) => {
      for (const lane of ['a', 'b']) {
        await tape.lane(lane, async () => {
          for (let step = 1; step <= 3; step++) {
            const prompt = changed && lane === 'a' && step === 2 ? 'changed' : `${lane} ${step}`
            await tape.call('llm', { prompt }, () => {
              live.push(`${lane} ${step}`)
              return prompt
            })
          }
        })
      }
    }
    const first = await open(store, 'update')
    await lanes(first, false, [])
    await first.finish()
    const tape = await open(store, 'resume')
    const live: string[] = []
    await lanes(tape, true, live)
    await tape.finish()
    expect(live).toEqual(['a 2', 'a 3'])
    const cassette = parseCassette(store.files[PATH]!, PATH)
    expect(cassette.header.rerecordedFrom).toEqual({ seq: 2, step: 2, lane: 'a', kept: 4 })
    expect(cassette.decisions.map((d) => `${d.lane} ${d.step}`)).toEqual([
      'a 1',
      'a 2',
      'a 3',
      'b 1',
      'b 2',
      'b 3',
    ])
  })

  it('records the whole run when there is no cassette yet', async () => {
    const store = createMemoryStore()
    const tape = await open(store, 'resume')
    const live: string[] = []
    await runAgent(tape, original, live, 2)
    const state = await tape.finish()
    expect(live).toHaveLength(4)
    expect(state).toMatchObject({ written: true, recorded: 4, replayed: 0 })
    expect(parseCassette(store.files[PATH]!, PATH).header.rerecordedFrom).toBeUndefined()
  })

  it('is refused in CI, as update is, unless the job is meant to record', () => {
    const refused = (() => {
      try {
        resolveMode({ mode: 'resume', env: { CI: 'true' } })
      } catch (error) {
        return error
      }
    })()
    expect(isAgentTapeError(refused) && refused.message).toMatch(
      /Refusing to re-record cassettes in CI: mode "resume" was requested/,
    )
    expect(
      resolveMode({ mode: 'resume', env: { CI: 'true', AGENT_TAPE_ALLOW_CI_RECORDING: '1' } }).mode,
    ).toBe('resume')
  })
})

describe('the rerecordedFrom header field', () => {
  const header = (rerecordedFrom: unknown) =>
    `${JSON.stringify({ agentTape: 2, keyScheme: 1, test: 't', recordedAt: '2026-12-02T00:00:00.000Z', rerecordedFrom })}\n`

  it('is read back as written', () => {
    expect(
      parseCassette(header({ seq: 3, step: 2, lane: 'a', kept: 2 }), PATH).header.rerecordedFrom,
    ).toEqual({
      seq: 3,
      step: 2,
      lane: 'a',
      kept: 2,
    })
  })

  it.each([
    [{ seq: 0, step: 1, kept: 0 }],
    [{ seq: 2, step: 1 }],
    ['step 4'],
    [{ seq: 2, step: 1, kept: 1, lane: 3 }],
  ])('is refused when malformed: %j', (value) => {
    expect(() => parseCassette(header(value), PATH)).toThrow(
      /"rerecordedFrom" is .*, not \{ seq, step, lane\?, kept \}/,
    )
  })
})
