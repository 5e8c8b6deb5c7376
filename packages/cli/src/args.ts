import { parseArgs } from 'node:util'
import { AgentTapeError, closestName } from '@agent-tape/core/internal'

export interface OptionSpec {
  type: 'boolean' | 'string'
  short?: string
  /** A string option that may be repeated; its value is then an array. */
  multiple?: boolean
  /** Placeholder of a string option's value in the help, e.g. `<dir>`. */
  value?: string
  description: string
}

/** A command's arguments and help, the single source for parsing and for `--help`. */
export interface CommandSpec {
  name: string
  /** Positional arguments as shown in the usage line, e.g. `<a> <b>`. */
  args: string
  summary: string
  /** Paragraphs printed after the usage line. */
  description: readonly string[]
  options: Readonly<Record<string, OptionSpec>>
  positionals: { min: number; max: number }
  /** What follows `--` is a command to run, kept whole in {@link ParsedArgs.command} (usage shows it). */
  command?: string
  examples: readonly string[]
}

export const HELP_OPTION: OptionSpec = { type: 'boolean', short: 'h', description: 'Show this help' }

/** `--allow-secret`, as every command that scans for secrets takes it. */
export const ALLOW_SECRET_OPTION: OptionSpec = {
  type: 'string',
  multiple: true,
  value: '<value>',
  description: 'A value that only looks like a secret (repeatable; as allowSecrets in the tape options)',
}

/** A bad command line: reported with the command's usage, exit code 2. */
export function usageError(command: string, why: string, fix?: string): AgentTapeError {
  return new AgentTapeError('ERR_TAPE_USAGE', {
    what: `Invalid arguments for ${command}`,
    why,
    fix: fix ?? `Run ${command} --help for usage`,
  })
}

export interface ParsedArgs {
  values: Record<string, string | boolean | (string | boolean)[] | undefined>
  positionals: string[]
  /** With a spec that takes a command: the arguments after the first `--` (none: no `--`). */
  command?: string[]
}

/**
 * Parses `argv` against a command spec. Unlike `parseArgs` in strict mode, an unknown option is
 * reported with the list of valid ones, and a missing or unexpected value names the option.
 */
export function parseCommandArgs(spec: CommandSpec, all: readonly string[]): ParsedArgs {
  const command = `agent-tape ${spec.name}`
  // A command after `--` is the command's own: none of its options are ours.
  const cut = spec.command ? all.indexOf('--') : -1
  const argv = cut === -1 ? all : all.slice(0, cut)
  const after = cut === -1 ? undefined : all.slice(cut + 1)
  const options = Object.fromEntries(
    Object.entries(spec.options).map(([name, o]) => [
      name,
      { type: o.type, ...(o.short ? { short: o.short } : {}), ...(o.multiple ? { multiple: true } : {}) },
    ]),
  )
  const { values, positionals, tokens } = parseArgs({
    args: [...argv],
    options,
    strict: false,
    allowPositionals: true,
    tokens: true,
  })
  for (const token of tokens) {
    if (token.kind !== 'option') continue
    const option = spec.options[token.name]
    if (!option) {
      const near = token.rawName.startsWith('--')
        ? closestName(token.name, Object.keys(spec.options))
        : undefined
      const guess = near ? ` (did you mean --${near}?)` : ''
      throw usageError(
        command,
        `unknown option ${token.rawName}${guess}; valid options are ${listOptions(spec)}`,
      )
    }
    if (option.type === 'string' && token.value === undefined) {
      throw usageError(
        command,
        `option ${token.rawName} needs a value (${token.rawName} ${option.value ?? '<value>'})`,
      )
    }
    if (option.type === 'boolean' && token.value !== undefined) {
      throw usageError(command, `option ${token.rawName} takes no value, got ${JSON.stringify(token.value)}`)
    }
  }
  if (values.help) return { values, positionals }
  if (spec.command && positionals.length > spec.positionals.max) {
    const extra = positionals.slice(spec.positionals.max).map((p) => JSON.stringify(p))
    throw usageError(
      command,
      `unexpected argument${extra.length > 1 ? 's' : ''} ${extra.join(', ')} before -- (expected ${spec.args})`,
      `Put the command to run after --: agent-tape ${spec.name} ${spec.args.replace(/ ?\[?--.*$/, '')} -- node dist/agent.js`,
    )
  }
  const { min, max } = spec.positionals
  if (positionals.length < min) {
    throw usageError(command, `expected ${spec.args}, got ${describeCount(positionals.length)}`)
  }
  if (positionals.length > max) {
    const extra = positionals.slice(max).map((p) => JSON.stringify(p))
    throw usageError(
      command,
      `unexpected argument${extra.length > 1 ? 's' : ''} ${extra.join(', ')} (expected ${spec.args})`,
    )
  }
  return after === undefined ? { values, positionals } : { values, positionals, command: after }
}

function describeCount(n: number): string {
  return n === 0 ? 'none' : `${n} argument${n === 1 ? '' : 's'}`
}

function listOptions(spec: CommandSpec): string {
  return Object.entries(spec.options)
    .map(([name, o]) => (o.short ? `--${name} (-${o.short})` : `--${name}`))
    .join(', ')
}

/** The `--help` text of a command. */
export function renderCommandHelp(spec: CommandSpec): string {
  const lines = [
    `Usage: agent-tape ${spec.name} [options]${spec.args ? ` ${spec.args}` : ''}`,
    '',
    spec.summary,
  ]
  for (const paragraph of spec.description) lines.push('', ...wrap(paragraph, 80))
  lines.push('', 'Options:')
  const rows = Object.entries(spec.options).map(([name, o]) => {
    const flag = `${o.short ? `-${o.short}, ` : '    '}--${name}${o.type === 'string' ? ` ${o.value ?? '<value>'}` : ''}`
    return [flag, o.description] as const
  })
  const width = Math.max(...rows.map(([flag]) => flag.length))
  for (const [flag, description] of rows) lines.push(`  ${flag.padEnd(width)}  ${description}`)
  if (spec.examples.length > 0) {
    lines.push('', 'Examples:')
    for (const example of spec.examples) lines.push(`  ${example}`)
  }
  return `${lines.join('\n')}\n`
}

/** Breaks a paragraph into lines of at most `width` characters, at spaces. */
export function wrap(text: string, width: number): string[] {
  const lines: string[] = []
  let line = ''
  for (const word of text.split(' ')) {
    if (line !== '' && line.length + 1 + word.length > width) {
      lines.push(line)
      line = word
    } else {
      line = line === '' ? word : `${line} ${word}`
    }
  }
  if (line !== '') lines.push(line)
  return lines
}
