/**
 * The `describe` blocks of a test file, read from its source without running it, for the
 * describe path that names a tape's cassette (`__cassettes__/a.test.ts/<describe>/<tape>.jsonl`).
 * Prune deletes what this reading calls unused, so a block whose extent or name cannot be read
 * with certainty makes the file unreadable (`dynamic`), never a guess.
 */
export interface DescribeBlock {
  /** Where the call starts and ends (after its closing parenthesis) in the source. */
  start: number
  end: number
  /** The block's name; none when it is not a string literal. */
  name?: string
  /** Why the name cannot be read (a variable, a template with `${}`, a `.each` table). */
  dynamic?: string
}

const MODIFIERS = new Set(['skip', 'only', 'todo', 'concurrent', 'sequential', 'shuffle'])
const CONDITIONAL = new Set(['skipIf', 'runIf'])
const TABLES = new Set(['each', 'for'])

export function readDescribeBlocks(source: string): DescribeBlock[] | { unreadable: string } {
  const blocks: DescribeBlock[] = []
  const found = /\b(?:describe|suite)\b/g
  for (let match = found.exec(source); match !== null; match = found.exec(source)) {
    if (isInsideLiteral(source, match.index)) continue
    let i = skipSpace(source, match.index + match[0].length)
    let dynamic: string | undefined
    let call = true
    while (source[i] === '.') {
      const ident = /^\.\s*([A-Za-z_$][\w$]*)/.exec(source.slice(i, i + 64))
      if (!ident) break
      const modifier = ident[1]!
      i = skipSpace(source, i + ident[0].length)
      if (TABLES.has(modifier)) {
        dynamic = `a describe.${modifier} table names its blocks`
        if (source[i] !== '(') break
        i = skipSpace(source, skipParens(source, i))
      } else if (CONDITIONAL.has(modifier)) {
        if (source[i] !== '(') break
        i = skipSpace(source, skipParens(source, i))
      } else if (!MODIFIERS.has(modifier)) {
        call = false
        break
      }
    }
    if (!call || source[i] !== '(') continue
    const end = skipParens(source, i)
    if (end >= source.length && source[source.length - 1] !== ')') {
      return { unreadable: 'the extent of a describe block cannot be read' }
    }
    const name = dynamic ? undefined : literalArgument(source, skipSpace(source, i + 1))
    blocks.push({
      start: match.index,
      end,
      ...(name !== undefined ? { name } : {}),
      ...(name === undefined ? { dynamic: dynamic ?? 'a describe block is named by an expression' } : {}),
    })
  }
  return blocks
}

/** The describe blocks around `index`, outermost first. */
export function describePathAt(blocks: readonly DescribeBlock[], index: number): DescribeBlock[] {
  return blocks.filter((b) => b.start < index && index < b.end).sort((a, b) => a.start - b.start)
}

function literalArgument(source: string, i: number): string | undefined {
  const quote = source[i]
  if (quote !== "'" && quote !== '"' && quote !== '`') return undefined
  const end = source.indexOf(quote, i + 1)
  if (end === -1) return undefined
  const literal = source.slice(i + 1, end)
  if (literal.includes('\\') || (quote === '`' && literal.includes('${'))) return undefined
  const after = skipSpace(source, end + 1)
  return source[after] === ',' || source[after] === ')' ? literal : undefined
}

export function skipSpace(source: string, i: number): number {
  while (i < source.length) {
    if (/\s/.test(source[i]!)) i++
    else if (source.startsWith('//', i))
      i = source.indexOf('\n', i) === -1 ? source.length : source.indexOf('\n', i)
    else if (source.startsWith('/*', i))
      i = source.indexOf('*/', i) === -1 ? source.length : source.indexOf('*/', i) + 2
    else break
  }
  return i
}

/**
 * The index after the parenthesis that closes the one at `open`, skipping what a parenthesis in
 * a test body may hide in: strings, template literals (with their `${}`), comments and regular
 * expression literals (`/\(/`). Returns the source's length when it never closes.
 */
export function skipParens(source: string, open: number): number {
  let depth = 0
  let i = open
  while (i < source.length) {
    const c = source[i]!
    if (c === "'" || c === '"') i = skipString(source, i)
    else if (c === '`') i = skipTemplate(source, i)
    else if (source.startsWith('//', i) || source.startsWith('/*', i)) i = skipSpace(source, i)
    else if (c === '/' && startsRegExp(source, i)) i = skipRegExp(source, i)
    else {
      if (c === '(') depth++
      else if (c === ')' && --depth === 0) return i + 1
      i++
    }
  }
  return source.length
}

function skipString(source: string, i: number): number {
  const quote = source[i]
  for (let j = i + 1; j < source.length; j++) {
    if (source[j] === '\\') j++
    else if (source[j] === quote || source[j] === '\n') return j + 1
  }
  return source.length
}

function skipTemplate(source: string, i: number): number {
  for (let j = i + 1; j < source.length; j++) {
    if (source[j] === '\\') j++
    else if (source[j] === '`') return j + 1
    else if (source[j] === '$' && source[j + 1] === '{') {
      // The expression inside, up to its closing brace, with the same care for literals.
      let depth = 0
      let k = j + 1
      while (k < source.length) {
        const c = source[k]!
        if (c === "'" || c === '"') k = skipString(source, k)
        else if (c === '`') k = skipTemplate(source, k)
        else {
          if (c === '{') depth++
          else if (c === '}' && --depth === 0) break
          k++
        }
      }
      j = k
    }
  }
  return source.length
}

/** Whether a `/` starts a regular expression: what comes before it cannot end an operand. */
function startsRegExp(source: string, i: number): boolean {
  let j = i - 1
  while (j >= 0 && /\s/.test(source[j]!)) j--
  if (j < 0) return true
  if (/[(,=:[!&|?{};+\-*%<>~^]/.test(source[j]!)) return true
  const word = /[A-Za-z_$][\w$]*$/.exec(source.slice(Math.max(0, j - 16), j + 1))?.[0]
  return word !== undefined && ['return', 'typeof', 'case', 'do', 'else', 'in', 'of', 'void'].includes(word)
}

function skipRegExp(source: string, i: number): number {
  let inClass = false
  for (let j = i + 1; j < source.length; j++) {
    const c = source[j]
    if (c === '\\') j++
    else if (c === '\n') return j
    else if (inClass) inClass = c !== ']'
    else if (c === '[') inClass = true
    else if (c === '/') return j + 1
  }
  return source.length
}

/** Whether `index` lies inside a string, template or comment, read from the start of the file. */
export function isInsideLiteral(source: string, index: number): boolean {
  let i = 0
  while (i < index) {
    const c = source[i]!
    let next = i + 1
    if (c === "'" || c === '"') next = skipString(source, i)
    else if (c === '`') next = skipTemplate(source, i)
    else if (source.startsWith('//', i) || source.startsWith('/*', i)) next = skipSpace(source, i)
    else if (c === '/' && startsRegExp(source, i)) next = skipRegExp(source, i)
    if (next > index && next - 1 !== i) return true
    i = next
  }
  return false
}
