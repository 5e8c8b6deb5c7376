import { diffCassettes, isUnanswered } from '@agent-tape/inspect'
import { HELP_OPTION } from '../args.js'
import { loadCassette } from '../cassette-files.js'
import type { Command } from '../command.js'
import { renderDiff } from '../diff/render-diff.js'
import { fitToWidth } from '../output/fit.js'

export const diffCli: Command = {
  spec: {
    name: 'diff',
    args: '<a> <b>',
    summary: 'Show what changed between two recordings of the same test (before and after a re-record).',
    description: [
      'Decisions are aligned by position, kind, step and key, so an inserted tool call shows as one added decision and an edited prompt as one changed model request. Changed inputs are shown field by field; changed outputs as text, tool calls, finish reason and token usage. Fields that change on every recording (the ids a provider generates, created times, request ids, timings, recordedAt, and what each provider codec names) are ignored.',
      'Exit code 0 when the recordings are the same, 1 when they differ, 2 when a file cannot be read.',
      'To compare with the committed version: git show HEAD:<cassette> > /tmp/before.jsonl && agent-tape diff /tmp/before.jsonl <cassette>',
    ],
    options: {
      json: { type: 'boolean', description: 'Print the differences as JSON' },
      full: {
        type: 'boolean',
        description: 'List every changed input field (default: the first 12 per decision)',
      },
      help: HELP_OPTION,
    },
    positionals: { min: 2, max: 2 },
    examples: ['agent-tape diff before.jsonl test/__cassettes__/agent.test.ts/issue-412.jsonl'],
  },
  async run({ values, positionals }, io) {
    const [pathA, pathB] = positionals as [string, string]
    const a = await loadCassette('agent-tape diff', pathA, io)
    const b = await loadCassette('agent-tape diff', pathB, io)
    const diff = diffCassettes(pathA, a, pathB, b)
    // A run kept by a replay that missed ends with the request it missed.
    const last = b.decisions.at(-1)
    const run = last !== undefined && isUnanswered(last)
    if (values.json) io.stdout(`${JSON.stringify(diff, null, 2)}\n`)
    else
      io.stdout(
        fitToWidth(
          renderDiff(diff, { style: io.style, maxChanges: values.full ? Infinity : 12, run }),
          io.columns,
        ),
      )
    const same = diff.header.length === 0 && diff.entries.every((e) => e.status === 'unchanged')
    return same ? 0 : 1
  },
}
