import { describe, expect, it } from 'vitest'
import { keyedToolArgs, toolDecision } from './tools.js'

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

describe('toolDecision', () => {
  const real = () => 'real'
  const stub = () => 'stub'

  it('keys a call on the tool name and arguments, and the idempotency key when given', () => {
    expect(toolDecision('lookup', [{ id: 1 }], real, {}).input).toEqual({ name: 'lookup', args: [{ id: 1 }] })
    expect(toolDecision('refund', ['pay_1'], real, { idempotencyKey: 'order-7' }).input).toEqual({
      name: 'refund',
      args: ['pay_1'],
      idempotencyKey: 'order-7',
    })
  })

  it('runs the stub instead of the tool when there is one', () => {
    expect(toolDecision('lookup', [], real, {}).run()).toBe('real')
    expect(toolDecision('refund', [], real, { effect: 'irreversible', stub }).run()).toBe('stub')
  })

  it('refuses an irreversible tool without a stub', () => {
    expect(() => toolDecision('refund', [], real, { effect: 'irreversible' })).toThrow(
      '[agent-tape] Tool "refund" is declared irreversible without a stub',
    )
  })
})
