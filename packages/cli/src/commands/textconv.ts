import { readFile } from 'node:fs/promises'
import { basename, resolve } from 'node:path'
import { isCassetteCorruptError, parseCassette } from '@agent-tape/core'
import { redactCassetteForReading, SecretScanner, secretEnvValues } from '@agent-tape/core/internal'
import { HELP_OPTION } from '../args.js'
import type { Command } from '../command.js'
import { renderTranscript } from '../textconv/render-transcript.js'

export const textconvCli: Command = {
  spec: {
    name: 'textconv',
    args: '<cassette>',
    summary: 'Print a cassette as a plain transcript, for git diff (set up with agent-tape setup-git).',
    description: [
      "The recording's provenance (test, recordedAt, models, agent-tape, Node and SDK versions), then each decision in order: its step and kind; for a model request the parameters, tools and system prompt when they changed, the messages it adds to the request before it, the answer text, tool calls, finish reason and tokens; for a tool call its arguments and result; environment reads (set or unset), MCP and HTTP requests. One fact a line, long text broken after each sentence and at a fixed width, long JSON a member a line, nothing cut, no colour: git's line diff shows the words that changed. Keys, durations and ids, which change on every recording, are left out.",
      'Secrets are masked as everything agent-tape prints. A file that cannot be read as a cassette (damaged, another format, not one at all) is printed as it is after a one-line note, and the exit code is 0: a git diff never fails on it.',
    ],
    options: { help: HELP_OPTION },
    positionals: { min: 1, max: 1 },
    examples: [
      'agent-tape textconv test/__cassettes__/agent.test.ts/issue-412.jsonl',
      'git diff test/__cassettes__/   # once agent-tape setup-git has run',
    ],
  },
  async run({ positionals }, io) {
    const path = positionals[0]!
    const file = resolve(io.cwd, path)
    let text: string
    try {
      text = await readFile(file, 'utf8')
    } catch (error) {
      io.stdout(`${note(`cannot read ${path}: ${(error as Error).message}`)}\n`)
      return 0
    }
    io.stdout(transcriptOrText(text, basename(path), io.env))
    return 0
  },
}

/** The transcript of a cassette, or the text as it is after a note saying why it is not one. */
function transcriptOrText(text: string, name: string, env: Record<string, string | undefined>): string {
  if (text === '') return ''
  try {
    const cassette = parseCassette(text, name)
    return renderTranscript(name, redactCassetteForReading(cassette, new SecretScanner(secretEnvValues(env))))
  } catch (error) {
    const why = isCassetteCorruptError(error)
      ? `line ${error.line}: ${error.reason}`
      : error instanceof Error
        ? `${error.name}: ${error.message}`
        : String(error)
    return `${note(`not read as a cassette (${why.split('\n')[0]}); its text follows as it is`)}\n${text}`
  }
}

function note(text: string): string {
  return `[agent-tape textconv] ${text}`
}
