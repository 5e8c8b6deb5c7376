const ANSI = /\x1b\[[0-9;]*m/g

/** The width a line takes on a terminal: its characters, without colour sequences. */
export function visibleLength(line: string): number {
  return [...line.replace(ANSI, '')].length
}

/**
 * Wraps each line longer than `columns` at spaces, continuing under the start of its value: a
 * line `    label     value …` continues under `value`, any other under its own indent plus
 * `hanging`. Lines are never cut inside a word (a long URL stays whole); with no `columns`
 * (output to a pipe or a file) the text is returned unchanged, one line per record for grep.
 */
export function fitToWidth(text: string, columns: number | undefined, hanging = 2): string {
  if (!columns || columns < 20) return text
  return text
    .split('\n')
    .flatMap((line) => wrapLine(line, columns, hanging))
    .join('\n')
}

function wrapLine(line: string, columns: number, hanging: number): string[] {
  if (visibleLength(line) <= columns) return [line]
  const plain = line.replace(ANSI, '')
  const label = /^( *)(\S+ {2,})/.exec(plain)
  const lead = /^ */.exec(plain)![0].length
  let indent = label ? label[1]!.length + label[2]!.length : lead + hanging
  if (indent > columns / 2) indent = lead + hanging
  // Each chunk is a word with the spaces before it, so the spacing inside a line is kept.
  const chunks = line.match(/ *\S+/g) ?? [line]
  const out: string[] = []
  let current = chunks[0]!
  // A label keeps its first word of value beside it.
  let words = label ? 0 : 1
  for (const chunk of chunks.slice(1)) {
    if (words > 0 && visibleLength(current + chunk) > columns) {
      out.push(current)
      current = `${' '.repeat(indent)}${chunk.trimStart()}`
    } else current += chunk
    words++
  }
  out.push(current)
  return out
}
