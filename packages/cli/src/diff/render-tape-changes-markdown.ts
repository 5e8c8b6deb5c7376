import type { WordPart } from '@agent-tape/core/internal'
import { escapeHtml, formatCount } from '@agent-tape/inspect'
import {
  describeCostChange,
  describeCounts,
  describeDecisionChange,
  describeSideRef,
  describeSteps,
  describeTokens,
  oneLine,
} from './render-tape-changes.js'
import type { DecisionChange, RecordingSide, TapeChange, TapeChanges } from './tape-changes.js'

// GitHub Flavored Markdown for a job summary ($GITHUB_STEP_SUMMARY) or a pull request comment:
// a table of the cassettes, then a <details> block per changed one. Table cells are Markdown,
// so every ASCII punctuation mark in a value is escaped (a path's `__cassettes__` is not bold, a
// `|` does not end the cell, `$` does not start math) and `<`, `>`, `&`, `"` become entities.
// A <details> block is raw HTML up to the next blank line, so it holds no blank line and its
// values are only HTML-escaped (a backslash there would be printed).

const PUNCTUATION = /[\\`*_{}[\]()#+\-.!|~$:^=]/g

/** A value as Markdown text inside a table cell or a paragraph: shown exactly as it is. */
export function escapeMarkdown(text: string): string {
  // Backslashes first: the entities escapeHtml writes (`&#60;`) must stay as written.
  return escapeHtml(text.replace(/\s*\n\s*/g, ' ').replace(PUNCTUATION, '\\$&'))
}

/** The Markdown report of `agent-tape diff --base --markdown`. */
export function renderTapeChangesMarkdown(report: TapeChanges): string {
  const title = `### Cassettes changed from ${describeSideRef(report.base)} to ${describeSideRef(report.head)}`
  const out = [escapeHeading(title), '']
  if (report.cassettes.length === 0) {
    out.push('No cassette changed.', '')
    return out.join('\n')
  }
  out.push('| Cassette | Status | Steps | Tokens | Cost |', '| --- | --- | --- | --- | --- |')
  for (const c of report.cassettes) {
    const status = c.why ? `${c.status}: ${c.why}` : c.status
    const cells = [
      `<code>${escapeMarkdown(c.path)}</code>`,
      escapeMarkdown(status),
      escapeMarkdown(describeSteps(c.before, c.after)),
      escapeMarkdown(describeTokens(c.before, c.after)),
      escapeMarkdown(describeCostChange(c.before, c.after)),
    ]
    out.push(`| ${cells.join(' | ')} |`)
  }
  out.push('', escapeMarkdown(describeCounts(report.counts)), '')
  for (const c of report.cassettes) if (c.status === 'changed') out.push(renderDetails(c), '')
  return out.join('\n')
}

function escapeHeading(title: string): string {
  return `### ${escapeMarkdown(title.slice(4))}`
}

/** One changed cassette as a <details> block: its first difference, tool calls, totals and provenance. */
function renderDetails(c: TapeChange): string {
  const summary = c.first
    ? `<code>${escapeHtml(c.path)}</code>: first difference at ${escapeHtml(describeDecisionChange(c.first))}`
    : `<code>${escapeHtml(c.path)}</code>: header changed`
  const lines = [`<details><summary>${summary}</summary>`]
  if (c.header) lines.push(`<pre>${c.header.map((line) => `header ${escapeHtml(line)}`).join('\n')}</pre>`)
  for (const change of [c.first, c.firstInput]) {
    if (!change) continue
    if (change !== c.first) lines.push(`<p>then ${escapeHtml(describeDecisionChange(change))}</p>`)
    const rows = decisionRows(change)
    if (rows.length > 0) lines.push(`<pre>${rows.join('\n')}</pre>`)
  }
  const calls = [
    ...(c.toolCalls?.added ?? []).map((call) => `<li>added <code>${escapeHtml(call)}</code></li>`),
    ...(c.toolCalls?.removed ?? []).map((call) => `<li>removed <code>${escapeHtml(call)}</code></li>`),
  ]
  if (calls.length > 0) lines.push('<p>Tool calls:</p>', `<ul>${calls.join('')}</ul>`)
  lines.push(renderSides(c.before!, c.after!), '</details>')
  return lines.join('\n')
}

function decisionRows(change: DecisionChange): string[] {
  const rows: string[] = []
  const field = (name: string, values: readonly string[]) => {
    values.forEach((value, i) => {
      rows.push(`${(i === 0 ? name : '').padEnd(5)} ${value}`)
    })
  }
  if (change.what) field('what', [escapeHtml(change.what)])
  field(
    'in',
    change.input.flatMap((i) =>
      i.line !== undefined
        ? [escapeHtml(i.line)]
        : (i.words ?? []).map((hunk) => `${escapeHtml(i.path)}: ${renderWordHunkHtml(hunk)}`),
    ),
  )
  field('out', change.output.map(escapeHtml))
  return rows
}

/** A word-diff hunk in HTML: removed words in <del>, added ones in <ins>. */
export function renderWordHunkHtml(hunk: readonly WordPart[]): string {
  return hunk
    .map(({ text, change }) => {
      const body = escapeHtml(oneLine(text))
      return change === 'removed' ? `<del>${body}</del>` : change === 'added' ? `<ins>${body}</ins>` : body
    })
    .join('')
}

function renderSides(before: RecordingSide, after: RecordingSide): string {
  const row = (name: string, show: (s: RecordingSide) => string) =>
    `<tr><th>${name}</th><td>${show(before)}</td><td>${show(after)}</td></tr>`
  // In <code>: GitHub links no mention there (an SDK named `@scope/sdk`).
  const code = (values: readonly string[]) =>
    values.length > 0 ? values.map((v) => `<code>${escapeHtml(v)}</code>`).join(', ') : '—'
  return [
    '<table>',
    '<tr><th></th><th>before</th><th>after</th></tr>',
    row('steps', (s) => formatCount(s.steps)),
    row('tokens', (s) => `${formatCount(s.tokens.input)} in, ${formatCount(s.tokens.output)} out`),
    row('cost', (s) => escapeHtml(s.cost)),
    row('model', (s) => code(s.models)),
    row('SDKs', (s) => code(Object.entries(s.sdks).map(([name, version]) => `${name} ${version}`))),
    row('agent-tape', (s) => code(s.agentTape ? [s.agentTape] : [])),
    row('recorded', (s) => escapeHtml(s.recordedAt)),
    '</table>',
  ].join('\n')
}
