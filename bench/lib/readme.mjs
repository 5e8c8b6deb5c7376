/**
 * The README's performance table and the sentences under it, rendered from the same results as
 * RESULTS.md and written between the `bench:start` / `bench:end` markers of its `## Performance`
 * section, so the two cannot disagree. The README shows ratios, not absolute times, in its table.
 */
import { formatRoundBytes, formatRoundMs, growthNote, rerecordNote } from './report.mjs'
import { median } from './stats.mjs'

export const README_START = '<!-- bench:start -->'
export const README_END = '<!-- bench:end -->'
const COLUMNS = ['agent-tape', 'polly', 'nock', 'floor']
const WIDTH = 100

/** `readme` with the text between its markers replaced by the block rendered from `r`. */
export function updateReadme(readme, r) {
  const start = readme.indexOf(README_START)
  const end = readme.indexOf(README_END)
  if (start === -1 || end < start) {
    throw new Error(
      `bench: README.md has no ${README_START} ... ${README_END} pair around its performance table, so it cannot be updated. Put the markers back around the generated part of "## Performance".`,
    )
  }
  return `${readme.slice(0, start + README_START.length)}\n\n${renderReadmeBlock(r)}\n\n${readme.slice(end)}`
}

/** The table and the paragraph under it; every scenario the README quotes must have run. */
export function renderReadmeBlock(r) {
  const missing = ['perRequest', 'streaming', 'agentRun', 'sizes', 'load', 'suite'].filter((k) => !r[k])
  if (missing.length > 0) {
    throw new Error(
      `bench: the README's performance section needs every scenario it quotes; this run lacks ${missing.join(', ')}. Run \`pnpm bench\` without --only.`,
    )
  }
  const ratio = (times, c) =>
    c === 'floor' ? '1×' : formatRoundRatio(median(times[c].map((t, i) => t / times.floor[i])))
  const major = (name) => r.machine.versions[name].split('.')[0]
  const rows = [
    [
      'replayed through `fetch` / the openai SDK',
      'agent-tape',
      `Polly.js ${major('@pollyjs/core')}`,
      `nock back ${major('nock')}`,
      'floor',
    ],
    ...r.perRequest.map((p) => [
      `one chat request, ${p.label} body`,
      ...COLUMNS.map((c) => ratio(p.times, c)),
    ]),
    ['a 500-event stream, fully consumed', ...COLUMNS.map((c) => ratio(r.streaming.times, c))],
    [
      `a ${r.agentRun.steps}-step tool loop, history growing to ${formatRoundBytes(r.agentRun.probes.at(-1).bytes)}`,
      ...COLUMNS.map((c) => ratio(r.agentRun.times, c)),
    ],
    [
      "that run's recording on disk",
      ...COLUMNS.map((c) => (r.sizes[c] ? formatRoundBytes(r.sizes[c]) : '–')),
    ],
  ]
  const paragraphs = [
    [
      `A ${r.load.decisions.toLocaleString('en')}-decision cassette loads and indexes in ${formatRoundMs(r.load.load.median)};`,
      `${r.suite.tests} \`it.tape\` tests replaying ${r.suite.steps}-step runs take ${formatRoundRatio(r.suite.medianRatio)} the wall clock of the same tests with hand-written \`fetch\` stubs under Vitest and ${formatRoundRatio(r.suite.jest.medianRatio)} under Jest, and a test file without tapes costs ${formatRoundMs(r.suite.withoutTapes.perFileMs)} more under Vitest and ${formatRoundMs(r.suite.jest.withoutTapes.perFileMs)} more under Jest.`,
    ],
    [...(r.growth ? [growthNote(r)] : []), ...(r.rerecord ? [rerecordNote(r)] : [])],
  ].filter((sentences) => sentences.length > 0)
  paragraphs
    .at(-1)
    .push(
      `Everything, with the method, is in [bench/RESULTS.md](bench/RESULTS.md); \`npx -y pnpm@12.4.2 bench\` reruns it (about ${Math.max(1, Math.round(r.machine.seconds / 60))} minutes).`,
    )
  return [...alignTable(rows), ...paragraphs.flatMap((sentences) => ['', ...wrap(sentences.join(' '))])].join(
    '\n',
  )
}

/** Two significant digits: 1.8×, 0.85×, 22×. */
function formatRoundRatio(ratio) {
  return `${ratio >= 10 ? Math.round(ratio) : ratio.toPrecision(2)}×`
}

/** A Markdown table padded as the formatter pads it: the first column left, the others right. */
function alignTable(rows) {
  const widths = rows[0].map((_, i) => Math.max(3, ...rows.map((row) => [...row[i]].length)))
  const cell = (text, i) => (i === 0 ? text.padEnd(widths[i]) : text.padStart(widths[i]))
  const line = (cells) => `| ${cells.join(' | ')} |`
  return [
    line(rows[0].map(cell)),
    line(widths.map((w, i) => (i === 0 ? '-'.repeat(w) : `${'-'.repeat(w - 1)}:`))),
    ...rows.slice(1).map((row) => line(row.map(cell))),
  ]
}

/** Greedy line wrapping at the README's width, on spaces outside code spans. */
function wrap(text) {
  const lines = []
  let line = ''
  for (const word of text.match(/(?:`[^`]*`|[^\s`])+/g)) {
    if (line && line.length + 1 + word.length > WIDTH) {
      lines.push(line)
      line = word
    } else {
      line = line ? `${line} ${word}` : word
    }
  }
  if (line) lines.push(line)
  return lines
}
