import { describe, expect, it } from 'vitest'
import { fitToWidth, visibleLength } from './fit.js'

describe('fitToWidth', () => {
  const field = `    last      user: ${'word '.repeat(30).trim()}`
  it('wraps a field under the start of its value, every line within the width', () => {
    const lines = fitToWidth(field, 40).split('\n')
    expect(lines.length).toBeGreaterThan(3)
    for (const line of lines) expect(visibleLength(line)).toBeLessThanOrEqual(40)
    for (const line of lines.slice(1)) expect(line.startsWith(`${' '.repeat(14)}word`)).toBe(true)
    expect(lines.join(' ').match(/word/g)).toHaveLength(30)
    expect(lines[0]).toMatch(/^ {4}last {6}user: word/)
  })

  it('leaves text alone without a width (a pipe), and short lines alone', () => {
    expect(fitToWidth(field, undefined)).toBe(field)
    expect(fitToWidth('short', 80)).toBe('short')
  })

  it('does not cut a word longer than the width, and ignores colour codes when measuring', () => {
    const url = `FAIL  ${'x'.repeat(60)}  reason`
    expect(fitToWidth(url, 40).split('\n')[0]).toBe(`FAIL  ${'x'.repeat(60)}`)
    const coloured = `\x1b[31mFAIL\x1b[39m  path  ${'a '.repeat(10).trim()}`
    expect(fitToWidth(coloured, 80)).toBe(coloured)
  })

  it('continues a line with no label under its own indent plus the hanging indent', () => {
    const lines = fitToWidth(`  ${'note '.repeat(20).trim()}`, 30, 4).split('\n')
    for (const line of lines.slice(1)) expect(line.startsWith('      note')).toBe(true)
  })
})
