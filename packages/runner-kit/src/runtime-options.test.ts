import { expect, it } from 'vitest'
import { createRuntimeOptionsSlot, type TapeRuntimeOptions } from './runtime-options.js'

it('appends rules of later calls and replaces the other fields', () => {
  const key = `agent-tape.test.${Math.random()}`
  const slot = createRuntimeOptionsSlot<TapeRuntimeOptions>(key)
  expect(slot.current()).toEqual({})
  const ssn = { name: 'ssn', pattern: /\d{3}-\d{2}-\d{4}/g }
  const card = { name: 'card', pattern: /\d{16}/g }
  slot.add({ redactors: [ssn], allowSecrets: ['sk-test'], sdks: { openai: '5.0.0' } })
  slot.add({ redactors: [card], sdks: { openai: '5.1.0' } })
  expect(slot.current()).toEqual({
    redactors: [ssn, card],
    normalizers: [],
    allowSecrets: ['sk-test'],
    sdks: { openai: '5.1.0' },
  })
})

it('shares the options between slots made with the same key, as copies of a package in one worker are', () => {
  const key = `agent-tape.test.${Math.random()}`
  createRuntimeOptionsSlot<TapeRuntimeOptions>(key).add({ allowSecrets: ['sk-test'] })
  expect(createRuntimeOptionsSlot<TapeRuntimeOptions>(key).current().allowSecrets).toEqual(['sk-test'])
})
