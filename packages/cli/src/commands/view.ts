import { writeFile } from 'node:fs/promises'
import { dirname, resolve } from 'node:path'
import { pathToFileURL } from 'node:url'
import { makeDirectory } from '@agent-tape/core/node'
import { renderCompareView, renderRunView } from '@agent-tape/inspect'
import { HELP_OPTION, usageError } from '../args.js'
import { loadCassette } from '../cassette-files.js'
import type { Command } from '../command.js'
import { openWithPlatform } from '../view/open-file.js'
import { defaultViewPath } from '../view/view-path.js'

export const viewCli: Command = {
  spec: {
    name: 'view',
    args: '<cassette> [<after>]',
    summary:
      'Write a self-contained HTML page of a recorded run, of two recordings side by side, or of a run that diverged from its recording.',
    description: [
      'One cassette: its timeline, steps down the page and lanes side by side, each decision a card that opens whole (the full request with the system prompt, every message and the tool schemas; the answer, reassembled from its stream, with the events). Two cassettes: aligned as agent-tape diff aligns them, a verdict per decision and the changed fields highlighted. --run <file>: the run a replay kept when it diverged (the failure report prints this command), next to its recording, up to the decision that missed.',
      'The page is one file that loads nothing: open it from disk or keep it as a CI artifact. Secrets are masked as in every command. It is written to -o <file>, or under node_modules/.cache/agent-tape/views/ (the system temp folder when there is no node_modules), and its path is printed.',
    ],
    options: {
      run: {
        type: 'string',
        value: '<file>',
        description: 'The diverged run to show next to the cassette (written by the test runner)',
      },
      output: { type: 'string', short: 'o', value: '<file>', description: 'Where to write the page' },
      open: { type: 'boolean', description: 'Open the page with the system opener once written' },
      help: HELP_OPTION,
    },
    positionals: { min: 1, max: 2 },
    examples: [
      'agent-tape view test/__cassettes__/agent.test.ts/issue-412.jsonl --open',
      'agent-tape view before.jsonl test/__cassettes__/agent.test.ts/issue-412.jsonl -o diff.html',
      'agent-tape view test/__cassettes__/agent.test.ts/issue-412.jsonl --run node_modules/.cache/agent-tape/runs/test/__cassettes__/agent.test.ts/issue-412.jsonl',
    ],
  },
  async run({ values, positionals }, io) {
    const command = 'agent-tape view'
    const [first, second] = positionals as [string, string | undefined]
    const run = typeof values.run === 'string' ? values.run : undefined
    if (run !== undefined && second !== undefined) {
      throw usageError(command, 'give either a second cassette or --run <file>, not both')
    }
    const a = { file: first, cassette: await loadCassette(command, first, io) }
    const other = second ?? run
    const b =
      other === undefined ? undefined : { file: other, cassette: await loadCassette(command, other, io) }
    const html = b
      ? renderCompareView(a, b, { env: io.env, run: run !== undefined })
      : renderRunView(a, { env: io.env })
    // Named after the recording a run diverged from, or the later of two recordings.
    const named = b && run === undefined ? b.file : a.file
    const variant = run !== undefined ? 'run' : b ? 'diff' : undefined
    const output =
      typeof values.output === 'string'
        ? resolve(io.cwd, values.output)
        : defaultViewPath(io.cwd, io.env, named, variant)
    await makeDirectory(dirname(output))
    await writeFile(output, html)
    // A file:// URL, not a path: a terminal opens it with a click, a browser from its address bar.
    io.stdout(`${pathToFileURL(output).href}\n`)
    if (values.open) {
      const opened = await openWithPlatform(output, io.env)
      if (!opened.ok) io.stderr(`${opened.message}\n`)
    }
    return 0
  },
}
