import { diffWords } from 'diff/lib/diff/word.js'
import { createPrintMask } from './format-message.js'

/** A run of text in a word diff: kept, or only in the text before (`removed`) or after (`added`). */
export interface WordPart {
  text: string
  change?: 'removed' | 'added'
}

/** Words kept on each side of an edit, in characters. */
const CONTEXT = 32
/** Past this many edited words, the two texts are shown as one replacement. */
const MAX_EDIT_WORDS = 400

/**
 * The words that changed between two texts, as hunks: each edit with a little of the text around
 * it, the rest cut to `…`, and edits close together in one hunk. Both texts are masked for
 * printing first, so a key in a prompt shows as its marker, never cut into an unrecognisable piece.
 *
 * @example
 * diffWordHunks('You answer questions about cities.', 'You answer questions about towns.')
 * // [[{ text: 'You answer questions about ' }, { text: 'cities', change: 'removed' },
 * //   { text: 'towns', change: 'added' }, { text: '.' }]]
 */
export function diffWordHunks(
  before: string,
  after: string,
  env: Record<string, string | undefined> = process.env,
): WordPart[][] {
  const mask = createPrintMask(env)
  const a = mask(before)
  const b = mask(after)
  if (a === b) return []
  const parts: WordPart[] = (
    diffWords(a, b, { maxEditLength: MAX_EDIT_WORDS }) ?? [
      { value: a, removed: true, added: false, count: 1 },
      { value: b, added: true, removed: false, count: 1 },
    ]
  )
    .filter((p) => p.value !== '')
    .map((p) =>
      p.added
        ? { text: p.value, change: 'added' }
        : p.removed
          ? { text: p.value, change: 'removed' }
          : { text: p.value },
    )
  const hunks: WordPart[][] = []
  let hunk: WordPart[] = []
  parts.forEach((part, i) => {
    if (part.change) {
      hunk.push(part)
      return
    }
    const first = i === 0
    const last = i === parts.length - 1
    if (first) hunk.push({ text: lead(part.text) })
    else if (last) hunk.push({ text: tail(part.text) })
    else if (part.text.length <= 2 * CONTEXT + 16) hunk.push(part)
    else {
      hunk.push({ text: tail(part.text) })
      hunks.push(hunk)
      hunk = [{ text: lead(part.text) }]
    }
  })
  hunks.push(hunk)
  return hunks.map((h) => h.filter((p) => p.text !== ''))
}

/** The end of a kept run before an edit: its last words, `…` where it was cut. */
function lead(text: string): string {
  if (text.length <= CONTEXT) return text
  const from = text.length - CONTEXT
  const space = text.indexOf(' ', from)
  return `…${text.slice(space === -1 || space - from > 12 ? from : space + 1)}`
}

/** The start of a kept run after an edit. */
function tail(text: string): string {
  if (text.length <= CONTEXT) return text
  const space = text.lastIndexOf(' ', CONTEXT)
  return `${text.slice(0, space === -1 || CONTEXT - space > 12 ? CONTEXT : space)}…`
}
