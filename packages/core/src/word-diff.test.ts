import { describe, expect, it } from 'vitest'
import { diffWordHunks } from './word-diff.js'

describe('diffWordHunks', () => {
  it('marks the words that changed, with the text around them', () => {
    expect(
      diffWordHunks('You answer questions about cities.', 'You answer questions about towns.', {}),
    ).toEqual([
      [
        { text: 'You answer questions about ' },
        { text: 'cities', change: 'removed' },
        { text: 'towns', change: 'added' },
        { text: '.' },
      ],
    ])
  })

  it('cuts long unchanged text to a few words around each edit, and splits edits far apart into hunks', () => {
    const filler =
      'The agent reads the ticket, looks up the invoice and its payments, and checks every charge twice.'
    const before = `Refund the duplicate. ${filler} ${filler} Answer in one sentence.`
    const after = `Refund the second charge. ${filler} ${filler} Answer in two sentences.`
    const hunks = diffWordHunks(before, after, {})
    expect(hunks).toHaveLength(2)
    expect(hunks[0]).toEqual([
      { text: 'Refund the ' },
      { text: 'duplicate', change: 'removed' },
      { text: 'second charge', change: 'added' },
      { text: '. The agent reads the ticket,…' },
    ])
    expect(hunks[1]![0]).toEqual({ text: '…every charge twice. Answer in ' })
    expect(hunks[1]!.slice(1)).toEqual([
      { text: 'one sentence', change: 'removed' },
      { text: 'two sentences', change: 'added' },
      { text: '.' },
    ])
  })

  it('masks a key before diffing, so no piece of it is shown', () => {
    const key = `sk-proj-${'Ab3'.repeat(12)}`
    const hunks = diffWordHunks('Use the key.', `Use the key ${key}.`, {})
    const text = hunks
      .flat()
      .map((p) => p.text)
      .join('')
    expect(text).toContain('[REDACTED:')
    expect(text).not.toContain(key.slice(8, 20))
  })

  it('finds nothing between equal texts', () => {
    expect(diffWordHunks('same', 'same', {})).toEqual([])
  })
})
