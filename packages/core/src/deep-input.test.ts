import { expect, it } from 'vitest'
import { createMemoryStore } from './cassette-store.js'
import { isAgentTapeError } from './errors.js'
import { openTape } from './open-tape.js'

function nested(depth: number): unknown {
  const root: Record<string, unknown> = {}
  let node = root
  for (let i = 0; i < depth; i++) {
    const next: Record<string, unknown> = {}
    node.a = next
    node = next
  }
  return root
}

it('refuses an input nested 10,000 levels deep with an agent-tape error, in record and replay', async () => {
  const store = createMemoryStore()
  for (const mode of ['update', 'replay'] as const) {
    if (mode === 'replay')
      store.files['c.jsonl'] = '{"agentTape":1,"keyScheme":1,"test":"t","recordedAt":""}\n'
    const tape = await openTape({ id: 't', cassettePath: 'c.jsonl', store, mode, env: {} })
    const error = await tape.call('search', nested(10_000), () => 'ok').catch((e: unknown) => e)
    expect(isAgentTapeError(error), mode).toBe(true)
    expect((error as Error).message).toMatch(
      /^\[agent-tape\] Cannot key a decision of kind "search": its input is nested deeper than agent-tape can walk/,
    )
  }
})

it('keys an input nested a few hundred levels deep as any other', async () => {
  const store = createMemoryStore()
  const tape = await openTape({ id: 't', cassettePath: 'c.jsonl', store, mode: 'update', env: {} })
  expect(await tape.call('search', nested(500), () => 'ok')).toBe('ok')
  await tape.finish()
  const replay = await openTape({ id: 't', cassettePath: 'c.jsonl', store, mode: 'replay', env: {} })
  expect(await replay.call('search', nested(500), () => 'live')).toBe('ok')
})
