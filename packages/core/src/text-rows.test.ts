import { describe, expect, it } from 'vitest'
import { diffTextRows, type TextPiece, type TextRow } from './text-rows.js'

const text = (line: TextPiece[]) => line.map(([, t]) => t).join('')

/** Walks the rows against both texts: every line of each is where the rows say, in order. */
function checkRows(before: string, after: string, rows: TextRow[]): void {
  const lines = (t: string) => (t === '' ? [] : t.replace(/\n$/, '').split('\n'))
  const a = lines(before)
  const b = lines(after)
  let ia = 0
  let ib = 0
  for (const row of rows) {
    if (typeof row === 'string') {
      expect([a[ia], b[ib]]).toEqual([row, row])
      ia++
      ib++
    } else if (typeof row === 'number') {
      expect(a.slice(ia, ia + row)).toEqual(b.slice(ib, ib + row))
      ia += row
      ib += row
    } else {
      const [left, right] = row
      expect(left ?? right).not.toBeNull()
      if (left) expect(text(left)).toBe(a[ia++])
      if (right) expect(text(right)).toBe(b[ib++])
    }
  }
  expect([ia, ib]).toEqual([a.length, b.length])
}

describe('diffTextRows', () => {
  it('marks the changed words of an edited sentence, the rest of its line the same on both sides', () => {
    const rows = diffTextRows(
      'You are a support agent. Refund only the duplicate payment, never the original.',
      'You are a support agent. Refund what they were charged.',
    )
    expect(rows).toHaveLength(1)
    const [left, right] = rows[0] as [TextPiece[], TextPiece[]]
    expect(left.filter(([c]) => c === 1).map(([, t]) => t.trim())).toEqual([
      'only the duplicate payment, never the original',
    ])
    expect(right.filter(([c]) => c === 1).map(([, t]) => t.trim())).toEqual(['what they were charged'])
    expect(left[0]).toEqual([0, 'You are a support agent. Refund '])
  })

  it('puts an inserted line on a row of its own, with no line on the other side', () => {
    const rows = diffTextRows('one\ntwo\nthree\n', 'one\ntwo\nand a half\nthree\n')
    expect(rows).toEqual(['one', 'two', [null, [[1, 'and a half']]], 'three'])
    const removed = diffTextRows('one\ntwo\nthree\n', 'one\nthree\n')
    expect(removed).toEqual(['one', [[[1, 'two']], null], 'three'])
  })

  it('counts the unchanged lines far from every change instead of showing them', () => {
    const lines = Array.from({ length: 40 }, (_, i) => `line ${i + 1}`)
    const after = [...lines]
    after[19] = 'line twenty'
    const rows = diffTextRows(lines.join('\n'), after.join('\n'))
    expect(rows).toEqual([
      17,
      'line 18',
      'line 19',
      [
        [
          [0, 'line '],
          [1, '20'],
        ],
        [
          [0, 'line '],
          [1, 'twenty'],
        ],
      ],
      'line 21',
      'line 22',
      18,
    ])
    checkRows(lines.join('\n'), after.join('\n'), rows)
  })

  it('cuts a long unchanged stretch of an edited line to its ends', () => {
    const long = 'word '.repeat(200)
    const [left, right] = diffTextRows(`${long}old end`, `${long}new end`)[0] as [TextPiece[], TextPiece[]]
    // The start of the line is left out; the words just before the change are kept.
    expect(left[0]).toEqual([2, `… ${long.length - 80} characters the same …`])
    expect(left.slice(1)).toEqual([
      [0, long.slice(-80)],
      [1, 'old'],
      [0, ' end'],
    ])
    expect(right.slice(2)).toEqual([
      [1, 'new'],
      [0, ' end'],
    ])
  })

  it('keeps both texts whole and in order, whatever the edits (random texts)', () => {
    let seed = 7
    const random = (n: number) => {
      seed = (seed * 1103515245 + 12345) & 0x7fffffff
      return seed % n
    }
    const words = ['alpha', 'beta', 'gamma', 'delta', 'refund', 'the', 'payment', '', '  ', 'ß', '😀']
    const line = () => Array.from({ length: 1 + random(6) }, () => words[random(words.length)]).join(' ')
    for (let round = 0; round < 300; round++) {
      const a = Array.from({ length: random(12) }, line)
      const b = a.filter(() => random(5) > 0).map((l) => (random(4) === 0 ? line() : l))
      if (random(3) === 0) b.splice(random(b.length + 1), 0, line(), line())
      const before = a.join('\n') + (random(2) ? '\n' : '')
      const after = b.join('\n') + (random(2) ? '\n' : '')
      checkRows(before, after, diffTextRows(before, after))
    }
  })
})
