import { readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { REPO_ROOT } from './fixture-project.js'
import type { GateMeasure } from './secret-gate.js'

/**
 * The gate's numbers as docs/secrets.md and the README publish them, rendered from a measure and
 * kept between `secret-gate:start` / `secret-gate:end` markers, so that the pages cannot say
 * other numbers than the test counts (as the bench keeps the README's performance table).
 */
export const START = '<!-- secret-gate:start -->'
export const END = '<!-- secret-gate:end -->'
export const DOCS = 'docs/secrets.md'
export const README = 'README.md'

const n = (value: number) => value.toLocaleString('en-US')

const SECRET_CLASSES: Record<string, string> = {
  shape: 'a key format (one sample per provider shape)',
  escaped: 'JSON-escaped',
  encoded: 'encoded (base64, base64url, gzip, a data URL)',
  named: 'carried by the name that holds it',
  boundary: 'next to characters a word boundary trips on',
  'placeholder-neighbour': 'next to a placeholder word',
  'member-name': 'a member name',
  wrapped: 'wrapped at a column',
  markup: 'in markup (XML, HTML, CSV, Markdown)',
  compatibility: 'in compatibility characters',
}

const ORDINARY_CLASSES: Record<string, string> = {
  code: 'code and configuration',
  log: 'logs, ids and digests',
  payload: 'API payloads',
  docs: 'documentation, public keys, other languages',
  env: 'echoes of an everyday environment',
  'look-alike': 'look-alikes of secrets',
}

/** Prose wrapped at 100 columns, as the docs are. */
function wrap(text: string, width = 100): string[] {
  const lines: string[] = []
  let line = ''
  for (const word of text.split(' ')) {
    if (line && line.length + 1 + word.length > width) {
      lines.push(line)
      line = word
    } else line = line ? `${line} ${word}` : word
  }
  return line ? [...lines, line] : lines
}

/** A Markdown table with its columns padded; every column but the first is right-aligned. */
function table(head: string[], rows: string[][]): string[] {
  const widths = head.map((h, i) => Math.max(h.length, 3, ...rows.map((r) => r[i]!.length)))
  const line = (cells: string[]) =>
    `| ${cells.map((c, i) => (i === 0 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join(' | ')} |`
  const rule = `| ${widths.map((w, i) => (i === 0 ? '-'.repeat(w) : `${'-'.repeat(w - 1)}:`)).join(' | ')} |`
  return [line(head), rule, ...rows.map(line)]
}

const places = (m: GateMeasure, secret: GateMeasure['surfaces'][number]['secret']) =>
  m.surfaces
    .filter((s) => s.secret === secret)
    .map((s) => s.name)
    .join(', ')

/** How many ordinary texts were refused or redacted in at least one place. */
export function textsTouched(measure: GateMeasure): number {
  return new Set([...measure.refused, ...measure.redacted].map((f) => f.id)).size
}

/** The measured part of docs/secrets.md's "What the gate catches, measured". */
export function renderDocsBlock(m: GateMeasure): string {
  const written = m.written.length
  const printed = m.printed.length
  const secretRows = Object.entries(m.secretClasses).map(([name, t]) => [
    SECRET_CLASSES[name] ?? name,
    n(t.values),
    n(t.placements),
    n(t.written),
    n(t.printed),
  ])
  const ordinaryRows = Object.entries(m.ordinaryClasses).map(([name, t]) => [
    ORDINARY_CLASSES[name] ?? name,
    n(t.values),
    n(t.placements),
    n(t.refused),
    n(t.redacted),
  ])
  return [
    START,
    '',
    ...wrap(
      `${n(m.secrets)} secrets and ${n(m.ordinary)} ordinary texts, each in the ${m.surfaces.length} places below, ` +
        'each through the real writer or printer ([`test/secrets/gate.test.ts`](../test/secrets/gate.test.ts), ' +
        'which checks these numbers and rewrites them when run with `UPDATE_SECRET_GATE=1`):',
    ),
    '',
    ...table(
      ['', 'values', 'placements', 'written', 'printed', 'refused', 'redacted'],
      [
        ['secrets', n(m.secrets), n(m.placements), n(written), n(printed), '', ''],
        [
          'ordinary texts',
          n(m.ordinary),
          n(m.ordinaryPlacements),
          '',
          '',
          n(m.refused.length),
          n(m.redacted.length),
        ],
      ],
    ),
    '',
    ...wrap(
      'A secret is _written_ when a 16-character piece of it (or of its encoding) is in a file agent-tape ' +
        'wrote (a stream counts as its events join), and _printed_ when more than 4 characters of it show in ' +
        'what agent-tape printed. An ordinary text is _refused_ when a write was refused for it, and ' +
        `_redacted_ when a marker stands in it where it was written or shown; ${n(textsTouched(m))} of the ` +
        `${n(m.ordinary)} were, in some place. The columns count placements: one value in one place.`,
    ),
    '',
    ...table(['secrets, by form', 'values', 'placements', 'written', 'printed'], secretRows),
    '',
    ...table(['ordinary texts', 'values', 'placements', 'refused', 'redacted'], ordinaryRows),
    '',
    ...wrap(`The places where a secret is written redacted: ${places(m, 'redacted')}.`),
    '',
    ...wrap(`Where its write is refused, nothing written: ${places(m, 'refused')}.`),
    '',
    ...wrap(`Where it is printed masked: ${places(m, 'masked')}.`),
    '',
    ...wrap(
      'Each place carries the values put in it: a value no scan can know, put in every place the same way, ' +
        'is found written or printed in each, but the run summary, the GitHub step summary and ' +
        '`agent-tape verify`, which name tapes and decisions and show no value.',
    ),
    '',
    END,
  ].join('\n')
}

/** The README's one line on the gate. */
export function renderReadmeBlock(m: GateMeasure): string {
  return [
    START,
    '',
    ...wrap(
      `**What the gate catches, measured:** of ${n(m.secrets)} secrets, each put in ${m.surfaces.length} places ` +
        `(${n(m.placements)} placements, every printer among them), ${n(m.written.length)} were written and ` +
        `${n(m.printed.length)} printed; of ${n(m.ordinary)} ordinary texts, ${n(textsTouched(m))} were refused or ` +
        'redacted somewhere ([the numbers, and what is out of reach](docs/secrets.md#what-the-gate-catches-measured)).',
    ),
    '',
    END,
  ].join('\n')
}

/** The text between the markers of `file` (markers included). */
export function blockIn(file: string): string {
  const text = readFileSync(join(REPO_ROOT, file), 'utf8')
  const start = text.indexOf(START)
  const end = text.indexOf(END, start)
  if (start < 0 || end < 0)
    throw new Error(`${file} has no ${START} … ${END} pair: put them back around the gate's numbers`)
  return text.slice(start, end + END.length)
}

/** Rewrites the text between the markers of `file`. */
export function writeBlock(file: string, block: string): void {
  const path = join(REPO_ROOT, file)
  const text = readFileSync(path, 'utf8')
  writeFileSync(
    path,
    text.replace(blockIn(file), () => block),
  )
}
