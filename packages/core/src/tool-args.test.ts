import { describe, expect, it } from 'vitest'
import { keyedToolArgs } from './tape.js'

describe('keyedToolArgs', () => {
  const context = {
    toolCallId: 'call_abc',
    messages: [{ role: 'user', content: 'hi' }],
    abortSignal: undefined,
  }
  it.each([
    ['the ai SDK call context', [{ city: 'Paris' }, context], [{ city: 'Paris' }]],
    ['an AbortSignal', [{ city: 'Paris' }, new AbortController().signal], [{ city: 'Paris' }]],
    [
      'nothing when the last argument is data',
      [{ city: 'Paris' }, { units: 'metric' }],
      [{ city: 'Paris' }, { units: 'metric' }],
    ],
    [
      'nothing from an object that only has a toolCallId',
      ['x', { toolCallId: 'id' }],
      ['x', { toolCallId: 'id' }],
    ],
    ['the context even when it is the only argument', [context], []],
    ['nothing from no arguments', [], []],
  ])('leaves out %s', (_, args, keyed) => {
    expect(keyedToolArgs(args)).toEqual(keyed)
  })
})
