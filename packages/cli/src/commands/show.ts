import { HELP_OPTION } from '../args.js'
import { loadCassette } from '../cassette-files.js'
import type { Command } from '../command.js'
import { renderTimeline } from '../show/render-timeline.js'
import { summarizeCassette } from '../show/summarize.js'

export const showCommand: Command = {
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
      help: HELP_OPTION,
    },
    positionals: { min: 1, max: 1 },
    examples: [
      'agent-tape show test/__cassettes__/agent.test.ts/issue-412.jsonl',
      'agent-tape show --json test/__cassettes__/agent.test.ts/issue-412.jsonl | jq .totals',
    ],
  },
  async run({ values, positionals }, io) {
    const path = positionals[0]!
    const summary = summarizeCassette(path, await loadCassette('agent-tape show', path, io))
    if (values.json) io.stdout(`${JSON.stringify(summary, null, 2)}\n`)
    else io.stdout(renderTimeline(summary, { style: io.style, maxPreview: values.full ? Infinity : 120 }))
    return 0
  },
}
