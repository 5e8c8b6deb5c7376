import { readdirSync, readFileSync } from 'node:fs'
import { join, relative } from 'node:path'
import { TAPE_MODES } from '@agent-tape/core'
import { describe, expect, it } from 'vitest'

// Every list of the modes agent-tape prints comes from core's TAPE_MODES, so a mode added there
// reaches every message and help text; the docs' tables of modes list them all.
const ROOT = join(import.meta.dirname, '..')
const MODE = String.raw`["'\x60]?\b(?:replay|auto|update|live-tools|live|resume)\b["'\x60]?`
/** Three mode names or more in a row, however they are separated. */
const LIST = new RegExp(String.raw`${MODE}(?:\s*(?:\||,|\/|\bor\b|\band\b)\s*${MODE}){2,}`)

/** The one place that lists the modes: their type and TAPE_MODES. */
const MODES_FILE = 'packages/core/src/modes.ts'

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name)
    if (entry.isDirectory())
      return entry.name === 'node_modules' || entry.name === 'dist' ? [] : sources(path)
    return /\.(ts|mjs|cjs)$/.test(entry.name) && !/\.test(-d)?\.ts$/.test(entry.name) ? [path] : []
  })
}

/** Lines of `file` that list modes by hand. */
export function modeLists(file: string, source: string): string[] {
  return source
    .split('\n')
    .flatMap((line, i) => (LIST.test(line) ? [`${file}:${i + 1}: ${line.trim()}`] : []))
}

describe('lists of modes', () => {
  it('are found when written by hand, whatever separates the names', () => {
    expect(
      modeLists('a.ts', 'Environment: AGENT_TAPE_MODE=replay|auto|update|live sets the mode'),
    ).toHaveLength(1)
    expect(modeLists('a.ts', 'why: \'valid modes are "replay", "auto", "update"\'')).toHaveLength(1)
    expect(modeLists('a.ts', '// `replay`, `auto` or `live-tools`')).toHaveLength(1)
    expect(modeLists('a.ts', 'a run that may replay or record: auto')).toEqual([])
  })

  it('come from TAPE_MODES in every source file of every package', () => {
    const found = sources(join(ROOT, 'packages'))
      .map((path) => relative(ROOT, path).replaceAll('\\', '/'))
      .filter((file) => file !== MODES_FILE)
      .flatMap((file) => modeLists(file, readFileSync(join(ROOT, file), 'utf8')))
    expect(found).toEqual([])
  })

  it('hold every mode in the modes tables of the docs', () => {
    for (const doc of ['README.md', 'docs/how-it-works.md']) {
      const text = readFileSync(join(ROOT, doc), 'utf8')
      const table = text.slice(text.indexOf('\n| mode '))
      const rows = table.split('\n\n')[0]!.split('\n').slice(3)
      expect(
        rows.map((row) => /^\| `([a-z-]+)`/.exec(row)?.[1]),
        doc,
      ).toEqual([...TAPE_MODES])
    }
  })
})
