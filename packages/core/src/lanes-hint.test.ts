import { describe, expect, it } from 'vitest'
import { parseCassette } from './cassette-format.js'
import { createMemoryStore } from './cassette-store.js'
import { isReplayMiss } from './divergence.js'
import { openTape } from './open-tape.js'

const PATH = '__cassettes__/agents.jsonl'
const open = (store: ReturnType<typeof createMemoryStore>, mode: string) =>
  openTape({ id: 'agents', cassettePath: PATH, store, mode, env: {}, rerecordCommand: 'rerecord' })
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

/** Two sub-agents asking the model at once, in one lane: who starts first decides the steps. */
async function subAgents(tape: Awaited<ReturnType<typeof open>>, order: string[], laned: boolean) {
  const ask = (prompt: string, delay: number) => async () => {
    await sleep(delay)
    const run = () =>
      tape.call('llm', { body: { messages: [{ role: 'system', content: prompt }] } }, async () => {
        await sleep(20)
        return `${prompt} answered`
      })
    return laned ? tape.lane(prompt.split(' ')[0]!.toLowerCase(), run) : run()
  }
  return Promise.all(order.map((prompt, i) => ask(prompt, i * 5)()))
}

describe('concurrent sub-agents without lanes', () => {
  it('warn while recording that their requests overlapped, and mark the cassette', async () => {
    const store = createMemoryStore()
    const tape = await open(store, 'auto')
    await subAgents(tape, ['Researcher finds facts.', 'Critic checks them.'], false)
    const state = await tape.finish()
    expect(state.warnings).toHaveLength(1)
    expect(state.warnings[0]).toContain(
      'Model requests overlapped while recording (steps 1 and 2 were in flight together)',
    )
    expect(state.warnings[0]).toContain("tape.lane('researcher', () => research(topic))")
    expect(parseCassette((await store.read(PATH))!, PATH).header.overlapped).toBe(true)
  })

  it('miss in another order with a hint naming the step the request was recorded at, and tape.lane', async () => {
    const store = createMemoryStore()
    const recording = await open(store, 'auto')
    await subAgents(recording, ['Researcher finds facts.', 'Critic checks them.'], false)
    await recording.finish()
    const replay = await open(store, 'replay')
    const error = await subAgents(replay, ['Critic checks them.', 'Researcher finds facts.'], false).catch(
      (e) => e,
    )
    expect(isReplayMiss(error)).toBe(true)
    const message = (error as Error).message
    expect(message).toContain('Hint: this very request was recorded at step 2, not step 1')
    expect(message).toContain("Run each concurrent sub-agent in its own lane, tape.lane('researcher'")
    // The nearest decision is the same request at its recorded step, not the other agent's prompt.
    expect(message).toContain('The input equals the nearest recorded one; only its position changed')
    expect(message).not.toContain('"Researcher finds facts." → "Critic checks them."')
  })

  it('with lanes, record no warning and replay in any order', async () => {
    const store = createMemoryStore()
    const recording = await open(store, 'auto')
    await subAgents(recording, ['Researcher finds facts.', 'Critic checks them.'], true)
    expect((await recording.finish()).warnings).toEqual([])
    const replay = await open(store, 'replay')
    await subAgents(replay, ['Critic checks them.', 'Researcher finds facts.'], true)
    expect((await replay.finish()).status).toBe('clean')
  })

  it('warn of nothing when model requests follow each other', async () => {
    const store = createMemoryStore()
    const tape = await open(store, 'auto')
    for (const prompt of ['one', 'two', 'three'])
      await tape.call('llm', { body: { prompt } }, async () => prompt)
    const state = await tape.finish()
    expect(state.warnings).toEqual([])
    expect(parseCassette((await store.read(PATH))!, PATH).header.overlapped).toBeUndefined()
  })
})
