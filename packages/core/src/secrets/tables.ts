import { credentialName, isCredentialValue, type NameStrength } from './names.js'

/** A cell of a table whose column is named for a credential, by position in the text. */
export interface CredentialCell {
  start: number
  end: number
  column: string
}

/** Texts that may hold a column named for a credential: the table reader runs only on them. */
const CREDENTIAL_WORD = /pass|secret|key|token|auth|sess|cookie|cred|jwt|pwd|sid/i
const DELIMITERS = [',', '\t', ';', '|'] as const
/** A header cell: a name, perhaps quoted, not a value. */
const HEADER_CELL = /^[ \t]*"?[A-Za-z_][\w .-]{0,60}"?[ \t]*$/
/** A Markdown table's rule under its header (`|---|:---:|`). */
const MARKDOWN_RULE = /^[ \t]*\|?(?:[ \t]*:?-{3,}:?[ \t]*\|)+[ \t]*(?::?-{3,}:?[ \t]*)?$/
/** Rows read per table: enough for any export an agent reads, bounded for a huge one. */
const MAX_ROWS = 10_000

interface Cell {
  text: string
  start: number
  end: number
}

/**
 * The cells of CSV, TSV and Markdown tables in `text` whose column is named for a credential
 * (`name,email,api_key`; `| user | password |`) and that hold a value that could be one, judged
 * as a member of that name would be (`names.ts`). A table starts at a header line of names, one
 * of them a credential's, and runs while the rows have the header's number of cells.
 */
export function credentialCells(text: string): CredentialCell[] {
  if (!text.includes('\n') || !CREDENTIAL_WORD.test(text)) return []
  const found: CredentialCell[] = []
  const lines = linesOf(text)
  for (let i = 0; i < lines.length - 1; i++) {
    const header = lines[i]!
    if (!CREDENTIAL_WORD.test(header.text)) continue
    for (const delimiter of DELIMITERS) {
      if (!header.text.includes(delimiter)) continue
      const names = cellsOf(header, delimiter)
      // A header may follow prose on its line (`could not import: name,email,api_key`).
      const lead =
        names[0] && !HEADER_CELL.test(names[0].text) ? /[A-Za-z_][\w.-]{0,60}$/.exec(names[0].text) : null
      if (lead) names[0] = { ...names[0]!, text: lead[0] }
      if (names.length < 2 || !names.every((c) => HEADER_CELL.test(c.text))) continue
      const columns = names
        .map((c, at) => ({ at, name: unquote(c.text), strength: credentialName(unquote(c.text)) }))
        .filter(
          (c): c is { at: number; name: string; strength: NameStrength } =>
            c.strength === 'strong' || c.strength === 'weak',
        )
      if (columns.length === 0) continue
      let row = i + 1
      if (delimiter === '|' && MARKDOWN_RULE.test(lines[row]?.text ?? '')) row++
      for (let read = 0; row < lines.length && read < MAX_ROWS; row++, read++) {
        const cells = cellsOf(lines[row]!, delimiter)
        if (cells.length !== names.length) break
        for (const column of columns) {
          const cell = cells[column.at]!
          if (isCredentialValue(column.strength, cell.text))
            found.push({ start: cell.start, end: cell.end, column: column.name })
        }
      }
      i = row - 1
      break
    }
  }
  return found
}

function linesOf(text: string): Cell[] {
  const lines: Cell[] = []
  let start = 0
  while (start <= text.length) {
    let end = text.indexOf('\n', start)
    if (end === -1) end = text.length
    const stop = end > start && text.charCodeAt(end - 1) === 13 ? end - 1 : end
    lines.push({ text: text.slice(start, stop), start, end: stop })
    start = end + 1
  }
  return lines
}

/**
 * The cells of a line, each trimmed and unquoted with its span in the text. A quoted cell may
 * hold the delimiter (`"a,b"`); a Markdown row's outer pipes are no cells.
 */
function cellsOf(line: Cell, delimiter: string): Cell[] {
  const cells: Cell[] = []
  let text = line.text
  let offset = line.start
  if (delimiter === '|') {
    // A Markdown row is framed by pipes; what stands before its first one is not a cell.
    const lead = /\|[ \t]*$/.test(text) ? /^[^|]*\|/.exec(text) : /^[ \t]*\|/.exec(text)
    if (lead) {
      text = text.slice(lead[0].length)
      offset += lead[0].length
    }
    text = text.replace(/\|[ \t]*$/, '')
  }
  let at = 0
  while (at <= text.length) {
    let from = at
    while (from < text.length && (text[from] === ' ' || text[from] === '\t') && text[from] !== delimiter)
      from++
    if (text[from] === '"') {
      let close = from + 1
      while (close < text.length) {
        if (text[close] === '"' && text[close + 1] === '"') close += 2
        else if (text[close] === '"') break
        else close++
      }
      const after = text.indexOf(delimiter, close)
      cells.push({ text: text.slice(from + 1, close), start: offset + from + 1, end: offset + close })
      if (after === -1) break
      at = after + 1
      continue
    }
    const next = text.indexOf(delimiter, from)
    const end = next === -1 ? text.length : next
    let stop = end
    while (stop > from && (text[stop - 1] === ' ' || text[stop - 1] === '\t')) stop--
    cells.push({ text: text.slice(from, stop), start: offset + from, end: offset + stop })
    if (next === -1) break
    at = next + 1
  }
  return cells
}

function unquote(cell: string): string {
  return cell.trim().replace(/^"|"$/g, '')
}
