import { stripVTControlCharacters } from 'node:util'
import { describe, expect, it } from 'vitest'
import { createStyle, shouldColor } from './style.js'

describe('shouldColor', () => {
  const tty = { isTTY: true, hasColors: () => true }
  const pipe = { isTTY: false }

  it('colours a terminal and not a pipe', () => {
    expect(shouldColor(tty, {})).toBe(true)
    expect(shouldColor(pipe, {})).toBe(false)
  })

  it('turns colour off for any non-empty NO_COLOR', () => {
    expect(shouldColor(tty, { NO_COLOR: '1' })).toBe(false)
    expect(shouldColor(tty, { NO_COLOR: '' })).toBe(true)
  })

  it('forces colour with FORCE_COLOR, even into a pipe and over NO_COLOR, unless it is 0 or false', () => {
    expect(shouldColor(pipe, { FORCE_COLOR: '1' })).toBe(true)
    expect(shouldColor(pipe, { FORCE_COLOR: '' })).toBe(true)
    expect(shouldColor(tty, { FORCE_COLOR: '1', NO_COLOR: '1' })).toBe(true)
    expect(shouldColor(tty, { FORCE_COLOR: '0' })).toBe(false)
    expect(shouldColor(tty, { FORCE_COLOR: 'false' })).toBe(false)
  })

  it('asks the terminal whether it has colours', () => {
    expect(shouldColor({ isTTY: true, hasColors: () => false }, {})).toBe(false)
  })
})

describe('createStyle', () => {
  it('leaves text untouched when colour is off', () => {
    const style = createStyle(false)
    expect(style.bold('a')).toBe('a')
    expect(style.redactions('key [REDACTED:openai-key] here')).toBe('key [REDACTED:openai-key] here')
  })

  it('highlights every redaction marker and nothing else', () => {
    const style = createStyle(true)
    const out = style.redactions('a [REDACTED:openai-key] b [REDACTED:env:API_TOKEN]')
    expect(out).toBe(
      'a \x1b[1;30;43m[REDACTED:openai-key]\x1b[0m b \x1b[1;30;43m[REDACTED:env:API_TOKEN]\x1b[0m',
    )
    expect(stripVTControlCharacters(out)).toBe('a [REDACTED:openai-key] b [REDACTED:env:API_TOKEN]')
  })
})
