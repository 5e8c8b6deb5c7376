import type { DecisionRecord } from '@agent-tape/core/internal'
import { type DecisionSummary, summarizeCassette } from '@agent-tape/inspect'
import { HELP_OPTION, usageError } from '../args.js'
import { loadCassette } from '../cassette-files.js'
import type { CliIo, Command } from '../command.js'
import { fitToWidth } from '../output/fit.js'
import { renderDecision, renderTimeline } from '../show/render-timeline.js'

export const showCli: Command = {
  spec: {
    name: 'show',
    args: '<cassette>',
    summary:
      'Print the timeline of a recorded run: every decision in order, with what was asked and answered.',
    description: [
      'For model requests: the API, the model, how many messages and tools were sent and the last one, the token usage, the finish reason, the answer text and the tool calls assembled from the stream. For tool calls: the tool, its arguments and its result. Redacted values ([REDACTED:…]) are highlighted on a terminal.',
      'Colour is used on a terminal; set NO_COLOR to turn it off, FORCE_COLOR=1 to keep it in a pipe.',
    ],
    options: {
      json: { type: 'boolean', description: 'Print the timeline as JSON (one object) for scripts' },
      full: { type: 'boolean', description: 'Do not shorten long arguments, results and messages' },
      decision: {
        type: 'string',
        short: 'd',
        value: '<n>',
        description:
          'Show decision #n whole: its summary, then everything it recorded (the full request, system prompt and message list included, and the answer)',
      },
      help: HELP_OPTION,
    },
    positionals: { min: 1, max: 1 },
    examples: [
      'agent-tape show test/__cassettes__/agent.test.ts/issue-412.jsonl',
      'agent-tape show -d 2 test/__cassettes__/agent.test.ts/issue-412.jsonl',
      'agent-tape show --json test/__cassettes__/agent.test.ts/issue-412.jsonl | jq .totals',
    ],
  },
  async run({ values, positionals }, io) {
    const path = positionals[0]!
    const cassette = await loadCassette('agent-tape show', path, io)
    const summary = summarizeCassette(path, cassette)
    if (values.decision !== undefined) {
      const index = decisionIndex(String(values.decision), path, cassette.decisions)
      const record = cassette.decisions[index]!
      if (values.json) io.stdout(`${JSON.stringify(record, null, 2)}\n`)
      else io.stdout(renderWhole(summary.decisions[index]!, record, io))
      return 0
    }
    if (values.json) io.stdout(`${JSON.stringify(summary, null, 2)}\n`)
    else {
      // On a terminal, previews are cut to fit its width; --full and pipes keep them whole.
      const fitted = io.columns ? Math.max(40, io.columns - 24) : Infinity
      const timeline = renderTimeline(summary, {
        style: io.style,
        maxPreview: values.full ? Infinity : fitted,
      })
      io.stdout(fitToWidth(timeline, io.columns))
    }
    return 0
  },
}

/**
 * The index of the decision `--decision` names: its number as `show` prints it (`3` or `#3`).
 * Not a number and out of range are told apart: "has decisions #1 to #7" answers only the second.
 */
function decisionIndex(value: string, path: string, decisions: readonly DecisionRecord[]): number {
  const range =
    decisions.length === 0
      ? `${path} has no decisions`
      : `${path} has decision${decisions.length === 1 ? ' #1' : `s #1 to #${decisions.length}`}`
  if (!/^#?\d+$/.test(value.trim())) {
    throw usageError(
      'agent-tape show',
      `--decision ${value} is not a number`,
      `Give the number of a decision: ${range}`,
    )
  }
  const seq = Number(value.trim().replace(/^#/, ''))
  const index = decisions.findIndex((d) => d.seq === seq)
  if (index === -1) throw usageError('agent-tape show', `--decision ${value}: ${range}`)
  return index
}

/** One decision whole: its timeline entry unshortened, then what it recorded as indented JSON. */
function renderWhole(summary: DecisionSummary, record: DecisionRecord, io: CliIo): string {
  const lines = renderDecision(summary, { style: io.style, maxPreview: Infinity })
  const json = (label: string, value: unknown) => {
    lines.push('', `    ${io.style.bold(label)}`)
    for (const line of JSON.stringify(value, null, 2).split('\n'))
      lines.push(`    ${io.style.redactions(line)}`)
  }
  json('in', record.in)
  if (record.out !== undefined) json('out', record.out)
  if (record.err !== undefined) json('err', record.err)
  return `${lines.join('\n')}\n`
}
