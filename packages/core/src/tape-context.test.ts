import { expect, it } from 'vitest'
import { createMemoryStore } from './cassette-store.js'
import { openTape } from './open-tape.js'
import { activeTapes, currentTape, runWithTape, setProcessTape } from './tape-context.js'

const open = (id: string) =>
  openTape({ id, cassettePath: `${id}.jsonl`, store: createMemoryStore(), mode: 'update', env: {} })

it('makes a process tape current outside every runWithTape, and a test tape inside its own', async () => {
  const processTape = await open('process')
  const testTape = await open('test')
  expect(currentTape()).toBeUndefined()
  const end = setProcessTape(processTape)
  try {
    expect(currentTape()).toBe(processTape)
    expect(activeTapes()).toContain(processTape)
    await new Promise((resolve) => setTimeout(resolve, 1))
    expect(currentTape()).toBe(processTape)
    expect(await runWithTape(testTape, async () => currentTape())).toBe(testTape)
  } finally {
    end()
  }
  expect(currentTape()).toBeUndefined()
  expect(activeTapes()).not.toContain(processTape)
})
