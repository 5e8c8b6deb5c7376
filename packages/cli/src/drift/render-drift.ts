import { formatCount, formatUsd } from '@agent-tape/inspect'
import type { Style } from '../output/style.js'
import type { DriftClass } from './classify.js'
import type { DriftReport, DriftRow } from './drift-run.js'

/** The order classes are counted in, and what each is called in a table. */
export const CLASSES: readonly DriftClass[] = ['unchanged', 'model', 'tools', 'code', 'budget', 'error']

const NAMES: Record<DriftClass, string> = {
  unchanged: 'unchanged',
  model: 'model',
  tools: 'tools',
  code: 'code',
  budget: 'not run (budget)',
  error: 'error',
}

const LONGEST_CHANGE = 160

export function countClasses(rows: readonly DriftRow[]): Record<DriftClass, number> {
  const counts = Object.fromEntries(CLASSES.map((c) => [c, 0])) as Record<DriftClass, number>
  for (const row of rows) counts[row.class]++
  return counts
}

/** `4 tests: 1 unchanged, 1 model, 1 tools, 1 code`. */
export function describeCounts(rows: readonly DriftRow[]): string {
  const counts = countClasses(rows)
  const parts = CLASSES.filter((c) => counts[c] > 0).map((c) => `${counts[c]} ${NAMES[c]}`)
  return `${rows.length} test${rows.length === 1 ? '' : 's'}${parts.length > 0 ? `: ${parts.join(', ')}` : ''}`
}

/** What the live model requests spent: `3 model requests sent, 1 refused; 412 tokens, $0.0012 (budget 500 tokens)`. */
export function describeSpend(report: DriftReport): string {
  const { spend } = report
  const limits = [
    spend.budget?.tokens === undefined ? undefined : `${formatCount(spend.budget.tokens)} tokens`,
    spend.budget?.usd === undefined ? undefined : formatUsd(spend.budget.usd),
  ].filter(Boolean)
  const refused = spend.refused > 0 ? `, ${spend.refused} refused` : ''
  const budget = limits.length > 0 ? ` (budget ${limits.join(' and ')})` : ''
  return `${spend.sent} live model request${spend.sent === 1 ? '' : 's'} sent${refused}; ${formatCount(spend.tokens)} tokens, ${formatUsd(spend.usd)}${budget}`
}

function change(row: DriftRow): string {
  if (!row.first) return ''
  const text = `${row.first.where}: ${row.first.what}`
  return text.length > LONGEST_CHANGE ? `${text.slice(0, LONGEST_CHANGE - 1)}…` : text
}

/** The table a terminal shows: a row per test, its class, and the first change. */
export function renderDriftText(report: DriftReport, style: Style): string {
  const header = ['class', 'test', 'first change']
  const cells = report.rows.map((row) => [NAMES[row.class], row.test, change(row)])
  const widths = [0, 1].map((i) => Math.max(header[i]!.length, ...cells.map((c) => c[i]!.length)))
  const line = (c: string[]) =>
    `  ${c[0]!.padEnd(widths[0]!)}  ${c[1]!.padEnd(widths[1]!)}  ${c[2]}`.trimEnd()
  const paint = (row: DriftRow, text: string) =>
    row.class === 'unchanged'
      ? style.green(text)
      : row.class === 'budget'
        ? style.yellow(text)
        : style.red(text)
  return [
    `${style.bold('agent-tape drift')}: ${describeCounts(report.rows)}`,
    '',
    style.dim(line(header)),
    ...report.rows.map((row, i) => {
      const c = cells[i]!
      return `${paint(row, `  ${c[0]!.padEnd(widths[0]!)}`)}${line(c).slice(widths[0]! + 2)}`
    }),
    '',
    describeSpend(report),
    '',
  ].join('\n')
}

/** The same as Markdown, for a pull request or a job summary. */
export function renderDriftMarkdown(report: DriftReport): string {
  const cell = (text: string) => text.replace(/\|/g, '\\|').replace(/\n/g, ' ')
  const code = (text: string) => (text === '' ? '' : `\`${text.replace(/`/g, "'")}\``)
  return [
    '## agent-tape drift',
    '',
    describeCounts(report.rows),
    '',
    '| class | test | first change |',
    '| --- | --- | --- |',
    ...report.rows.map(
      (row) =>
        `| ${NAMES[row.class]} | ${cell(row.test)} | ${cell(row.first ? `${row.first.where}: ${code(row.first.what)}` : '')} |`,
    ),
    '',
    describeSpend(report),
    '',
  ].join('\n')
}

/** The report as JSON: a row per test, the counts, what was spent, and the exit code. */
export function renderDriftJson(
  report: DriftReport,
  failOn: readonly DriftClass[],
  exitCode: number,
): string {
  return `${JSON.stringify(
    {
      counts: countClasses(report.rows),
      tests: report.rows,
      spend: report.spend,
      commands: report.commands,
      failOn,
      exitCode,
    },
    null,
    2,
  )}\n`
}
