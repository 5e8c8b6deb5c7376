import {
  describePathAt,
  isInsideLiteral,
  readDescribeBlocks,
  skipParens,
  skipSpace,
} from './describe-blocks.js'

/** The tape names a test file declares, read from its source without running it. */
export interface DeclaredTapes {
  names: Set<string>
  /** Each tape as the names of the describe blocks around it, outermost first, then its own. */
  tapes: string[][]
  /** Set when a tape is named in a way a static reading cannot follow; then no cassette of the file may be pruned. */
  dynamic?: { line: number; reason: string }
}

const MODIFIERS = new Set(['skip', 'only', 'todo', 'concurrent', 'sequential', 'fails'])
const CONDITIONAL = new Set(['skipIf', 'runIf'])
const TABLES = new Set(['each', 'for'])

/**
 * Finds `it.tape('name', …)` / `test.tape("name", …)` declarations, modifiers included
 * (`.skip`, `.only`, `.concurrent`, `.skipIf(c)`, …). A name that is not a plain string literal
 * (a variable, a template with `${}`), a `.each`/`.for` table, or `it.tape` passed around as a
 * value makes the file dynamic: which cassettes it uses cannot be told from its text.
 *
 * @example
 * readTapeNames("it.tape('issue-412', async ({ tape }) => {})").names // Set { 'issue-412' }
 */
export function readTapeNames(source: string): DeclaredTapes {
  const names = new Set<string>()
  const tapes: string[][] = []
  const blocks = readDescribeBlocks(source)
  if (!Array.isArray(blocks)) return { names, tapes, dynamic: { line: 1, reason: blocks.unreadable } }
  const found = /\b([A-Za-z_$][\w$]*)\s*\.\s*tape\b/g
  for (let match = found.exec(source); match !== null; match = found.exec(source)) {
    const owner = match[1]!
    // A tape in a comment or a string is no test's: the runner never sees it either.
    if (isInsideLiteral(source, match.index)) continue
    const result = readDeclaration(source, match.index + match[0].length)
    if (result.kind === 'name') {
      const path = describePathAt(blocks, match.index)
      const unnamed = path.find((b) => b.name === undefined)
      if (unnamed) {
        return { names, tapes, dynamic: { line: lineOf(source, unnamed.start), reason: unnamed.dynamic! } }
      }
      names.add(result.name)
      tapes.push([...path.map((b) => b.name!), result.name])
    } else if (
      result.kind === 'dynamic' ||
      (result.kind === 'value' && (owner === 'it' || owner === 'test'))
    ) {
      const reason = result.kind === 'dynamic' ? result.reason : `${owner}.tape is used as a value`
      return { names, tapes, dynamic: { line: lineOf(source, match.index), reason } }
    }
  }
  return { names, tapes }
}

type Declaration =
  | { kind: 'name'; name: string }
  | { kind: 'dynamic'; reason: string }
  /** Not followed by a call: `it.tape` passed around, or an unrelated `.tape` property. */
  | { kind: 'value' }
  /** A method of the tape fixture (`context.tape.tools(…)`): not a declaration. */
  | { kind: 'other' }

function readDeclaration(source: string, start: number): Declaration {
  let i = skipSpace(source, start)
  while (source[i] === '.') {
    const ident = /^\.\s*([A-Za-z_$][\w$]*)/.exec(source.slice(i, i + 64))
    if (!ident) return { kind: 'other' }
    const name = ident[1]!
    i = skipSpace(source, i + ident[0].length)
    if (TABLES.has(name)) return { kind: 'dynamic', reason: `a .${name} table names its tapes` }
    if (CONDITIONAL.has(name)) {
      if (source[i] !== '(') return { kind: 'value' }
      i = skipSpace(source, skipParens(source, i))
    } else if (!MODIFIERS.has(name)) {
      return { kind: 'other' }
    }
  }
  if (source[i] !== '(') return { kind: 'value' }
  i = skipSpace(source, i + 1)
  const quote = source[i]
  if (quote === "'" || quote === '"' || quote === '`') {
    const end = source.indexOf(quote, i + 1)
    const literal = end === -1 ? '' : source.slice(i + 1, end)
    if (end !== -1 && !literal.includes('\\') && !(quote === '`' && literal.includes('${'))) {
      const after = skipSpace(source, end + 1)
      if (source[after] === ',' || source[after] === ')') return { kind: 'name', name: literal }
    }
  }
  return { kind: 'dynamic', reason: 'a tape is named by an expression, not a string literal' }
}

function lineOf(source: string, index: number): number {
  let line = 1
  for (let i = 0; i < index; i++) if (source.charCodeAt(i) === 10) line++
  return line
}
