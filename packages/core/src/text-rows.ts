// The diff package's modules one by one: its main entry loads every kind of diff it has.
import { diffLines } from 'diff/lib/diff/line.js'
import { diffWordsWithSpace } from 'diff/lib/diff/word.js'

// Two versions of a text as rows a reader compares: the lines of both, aligned so that a line
// and its edit sit on one row, and inside an edited line the words that changed marked. The
// HTML view draws these rows side by side or one under the other; it never diffs in the page.

/**
 * A piece of one side's line: `[0, text]` the same on both sides, `[1, text]` changed (removed
 * on the left, inserted on the right), `[2, "…"]` unchanged text left out (its description).
 */
export type TextPiece = [0 | 1 | 2, string]

/**
 * One row: a line the same on both sides (`string`), that many unchanged lines left out
 * (`number`), or each side's line (`null` where a side has no line here: an insertion or a
 * removal).
 */
export type TextRow = string | number | [TextPiece[] | null, TextPiece[] | null]

/** Unchanged lines kept around each change. */
const CONTEXT_LINES = 2
/** Unchanged text inside an edited line longer than this is cut to its two ends. */
const LONG_SAME = 240
const SAME_END = 80
/** Past this many edited words in one block, its lines are shown removed and inserted whole. */
const MAX_EDIT_WORDS = 2000

/**
 * Aligned rows of two texts. Lines are compared first, then the words of each block of
 * changed lines, so that a sentence edited inside a long prompt shows that sentence's changed
 * words, its line on both sides of one row.
 */
export function diffTextRows(before: string, after: string): TextRow[] {
  const rows: TextRow[] = []
  const parts = diffLines(before, after)
  for (let p = 0; p < parts.length; p++) {
    const part = parts[p]!
    if (!part.added && !part.removed) {
      for (const line of splitLines(part.value)) rows.push(line)
      continue
    }
    const removed = part.removed ? part.value : ''
    const next = parts[p + 1]
    const added = part.added ? part.value : next?.added ? next.value : ''
    if (part.removed && next?.added) p++
    rows.push(...changedBlock(removed, added))
  }
  return foldSameLines(rows)
}

/** A block of removed lines and the block that replaced it, word by word, row by row. */
function changedBlock(removed: string, added: string): TextRow[] {
  const left: TextPiece[][] = []
  const right: TextPiece[][] = []
  const words =
    removed && added ? diffWordsWithSpace(removed, added, { maxEditLength: MAX_EDIT_WORDS }) : undefined
  if (words) {
    for (const word of words) {
      if (!word.added) appendPiece(left, word.removed ? 1 : 0, word.value)
      if (!word.removed) appendPiece(right, word.added ? 1 : 0, word.value)
    }
  } else {
    if (removed) appendPiece(left, 1, removed)
    if (added) appendPiece(right, 1, added)
  }
  // A block of whole lines ends with a line break: it starts no further line.
  if (removed.endsWith('\n') && left.at(-1)?.length === 0) left.pop()
  if (added.endsWith('\n') && right.at(-1)?.length === 0) right.pop()
  const rows: TextRow[] = []
  for (let i = 0; i < Math.max(left.length, right.length); i++) {
    rows.push([cutLongSame(joinChanges(left[i])), cutLongSame(joinChanges(right[i]))])
  }
  return rows
}

/** Appends text to a side's lines, starting a new line at each line break. */
function appendPiece(lines: TextPiece[][], change: 0 | 1, text: string): void {
  const pieces = text.replace(/\n$/, '').split('\n')
  if (lines.length === 0) lines.push([])
  pieces.forEach((piece, i) => {
    if (i > 0) lines.push([])
    if (piece) lines.at(-1)!.push([change, piece])
  })
  // A trailing line break ends the line: what follows starts the next one.
  if (text.endsWith('\n')) lines.push([])
}

/**
 * Changed words with only spaces between them read as one change: `only the duplicate` rather
 * than three changes and the two spaces they share.
 */
function joinChanges(line: TextPiece[] | undefined): TextPiece[] | undefined {
  if (!line) return line
  const out: TextPiece[] = []
  for (const piece of line) {
    const last = out.at(-1)
    if (last && last[0] === piece[0]) last[1] += piece[1]
    else out.push([piece[0], piece[1]])
  }
  for (let i = out.length - 2; i > 0; i--) {
    const [change, text] = out[i]!
    if (change === 0 && out[i - 1]![0] === 1 && out[i + 1]![0] === 1 && /^[ \t]+$/.test(text)) {
      out.splice(i - 1, 3, [1, out[i - 1]![1] + text + out[i + 1]![1]])
      i--
    }
  }
  return out
}

/** Long unchanged stretches of an edited line cut to their ends, so the change is in sight. */
function cutLongSame(line: TextPiece[] | undefined): TextPiece[] | null {
  if (!line) return null
  const out: TextPiece[] = []
  line.forEach(([change, text], i) => {
    if (change !== 0 || text.length <= LONG_SAME) {
      out.push([change, text])
      return
    }
    const head = i === 0 ? '' : text.slice(0, SAME_END)
    const tail = i === line.length - 1 ? '' : text.slice(-SAME_END)
    if (head) out.push([0, head])
    out.push([2, `… ${text.length - head.length - tail.length} characters the same …`])
    if (tail) out.push([0, tail])
  })
  return out
}

/** Unchanged lines away from every change are counted rather than shown. */
function foldSameLines(rows: TextRow[]): TextRow[] {
  const changed = rows.map((row) => typeof row !== 'string')
  const near = (i: number) => {
    for (let j = Math.max(0, i - CONTEXT_LINES); j <= Math.min(rows.length - 1, i + CONTEXT_LINES); j++)
      if (changed[j]) return true
    return false
  }
  const out: TextRow[] = []
  rows.forEach((row, i) => {
    if (typeof row !== 'string' || near(i)) {
      out.push(row)
      return
    }
    const last = out.at(-1)
    if (typeof last === 'number') out[out.length - 1] = last + 1
    else out.push(1)
  })
  return out
}

function splitLines(text: string): string[] {
  return text.replace(/\n$/, '').split('\n')
}
