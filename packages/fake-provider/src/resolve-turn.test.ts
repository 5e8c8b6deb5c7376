import { describe, expect, it } from 'vitest'
import { resolveTurn, splitJson, splitText } from './resolve-turn.js'

describe('splitText', () => {
  it('splits into word deltas that join back to the text', () => {
    expect(splitText('Hello  big world!\n')).toEqual(['Hello  ', 'big ', 'world!\n'])
    expect(splitText('  lead').join('')).toBe('  lead')
  })

  it('keeps whitespace-only text and gives no deltas for empty text', () => {
    expect(splitText('   ')).toEqual(['   '])
    expect(splitText('')).toEqual([])
  })
})

describe('splitJson', () => {
  it('slices by code point so no fragment splits a surrogate pair', () => {
    const json = JSON.stringify({ emoji: '😀😀😀😀😀😀' })
    const parts = splitJson(json, 5)
    expect(parts.join('')).toBe(json)
    expect(parts.every((p) => !/[\uD800-\uDBFF]$/.test(p))).toBe(true)
  })
})

describe('resolveTurn', () => {
  it('defaults finish reason to tool_calls when the turn calls tools, else stop', () => {
    expect(resolveTurn({ toolCalls: [{ name: 't', args: {} }] }, '').finishReason).toBe('tool_calls')
    expect(resolveTurn({ text: 'x' }, '').finishReason).toBe('stop')
    expect(resolveTurn({ text: 'x', finishReason: 'length' }, '').finishReason).toBe('length')
  })

  it('uses explicit deltas as given and joins them for the text', () => {
    const turn = resolveTurn({ text: ['Hel', 'lo'] }, '')
    expect(turn.textDeltas).toEqual(['Hel', 'lo'])
    expect(turn.text).toBe('Hello')
  })

  it('sends string args verbatim and parses them for providers that want an object', () => {
    const [ok, broken] = resolveTurn(
      {
        toolCalls: [
          { name: 'a', args: '{"x": 1}' },
          { name: 'b', args: '{"x": ' },
        ],
      },
      '',
    ).toolCalls
    expect(ok).toMatchObject({ argumentsJson: '{"x": 1}', input: { x: 1 } })
    expect(broken).toMatchObject({ argumentsJson: '{"x": ', input: {} })
  })

  it('estimates usage from sizes when the turn gives none, and keeps a given usage', () => {
    expect(resolveTurn({ text: 'abcdefgh' }, 'x'.repeat(40)).usage).toEqual({
      inputTokens: 10,
      outputTokens: 2,
    })
    expect(resolveTurn({ usage: { inputTokens: 1, outputTokens: 2 } }, '').usage).toEqual({
      inputTokens: 1,
      outputTokens: 2,
    })
  })
})
