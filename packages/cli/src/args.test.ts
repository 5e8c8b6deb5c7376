import { describe, expect, it } from 'vitest'
import { type CommandSpec, parseCommandArgs, renderCommandHelp, wrap } from './args.js'

const spec: CommandSpec = {
  name: 'demo',
  args: '<file>',
  summary: 'A demo command.',
  description: [
    'Long text that wraps at eighty columns when the help is printed, so it reads well on a terminal.',
  ],
  options: {
    json: { type: 'boolean', description: 'JSON' },
    root: { type: 'string', value: '<dir>', description: 'Root folder' },
    help: { type: 'boolean', short: 'h', description: 'Help' },
  },
  positionals: { min: 1, max: 1 },
  examples: ['agent-tape demo a.jsonl'],
}

describe('parseCommandArgs', () => {
  it('parses options and positionals, with -- ending the options', () => {
    expect(parseCommandArgs(spec, ['--json', '--root', 'x', 'a.jsonl'])).toMatchObject({
      values: { json: true, root: 'x' },
      positionals: ['a.jsonl'],
    })
    expect(parseCommandArgs(spec, ['--', '--json']).positionals).toEqual(['--json'])
  })

  it('rejects unknown options with the list of valid ones', () => {
    expect(() => parseCommandArgs(spec, ['-x', 'a'])).toThrow(
      '[agent-tape] Invalid arguments for agent-tape demo: unknown option -x; valid options are --json, --root, --help (-h). Run agent-tape demo --help for usage.',
    )
  })

  it('rejects missing and extra positionals, but not when asking for help', () => {
    expect(() => parseCommandArgs(spec, [])).toThrow('expected <file>, got none')
    expect(() => parseCommandArgs(spec, ['a', 'b', 'c'])).toThrow(
      'unexpected arguments "b", "c" (expected <file>)',
    )
    expect(parseCommandArgs(spec, ['--help']).values.help).toBe(true)
  })
})

it('renders the help with wrapped paragraphs and aligned options', () => {
  expect(renderCommandHelp(spec)).toBe(`Usage: agent-tape demo [options] <file>

A demo command.

Long text that wraps at eighty columns when the help is printed, so it reads
well on a terminal.

Options:
      --json        JSON
      --root <dir>  Root folder
  -h, --help        Help

Examples:
  agent-tape demo a.jsonl
`)
  expect(wrap('a b c', 3)).toEqual(['a b', 'c'])
})
