import { AgentTapeError, type CommandPlaceholder } from '@agent-tape/core/internal'

/** The variable a replay fills argument `index` from when its secret was no environment variable's value. */
export function argumentVariable(index: number): string {
  return `AGENT_TAPE_ARG_${index}`
}

/** What a cassette keeps where a secret of the command line was: `[REDACTED:$DB_PASSWORD]`. */
export function placeholderText(variable: string): string {
  return `[REDACTED:$${variable}]`
}

export const PLACEHOLDER = /\[REDACTED:\$([A-Za-z_][A-Za-z0-9_]*)\]/g
/** What an older agent-tape wrote in a secret's place (`REDACTED`, `[REDACTED:openai-key]`): nothing to fill it from. */
const OLD_REDACTION = /REDACTED/

/** A piece of a recorded argument: text as recorded, or a placeholder's variable. */
export type ArgumentPiece = { text: string } | { variable: string }

/** A recorded argument cut into its text and its placeholders, in order. */
export function piecesOf(arg: string): ArgumentPiece[] {
  const pieces: ArgumentPiece[] = []
  let from = 0
  for (const m of arg.matchAll(PLACEHOLDER)) {
    if (m.index > from) pieces.push({ text: arg.slice(from, m.index) })
    pieces.push({ variable: m[1]! })
    from = m.index + m[0].length
  }
  if (from < arg.length || pieces.length === 0) pieces.push({ text: arg.slice(from) })
  return pieces
}

/** One line per placeholder: the argument, what it held, the variable a replay reads. */
export function describePlaceholders(
  placeholders: readonly (CommandPlaceholder & { what?: string })[],
): string[] {
  return placeholders.map(({ arg, env, option, what }) => {
    const about = [what, option && !what?.includes(option) ? `after ${option}` : undefined]
      .filter(Boolean)
      .join(', ')
    return `  argument ${arg}${about ? ` (${about})` : ''}: $${env}`
  })
}

/** `A=… B=… ` in front of a command: the variables a replay needs set, as a shell sets them. */
export function variablesToSet(names: readonly string[]): string {
  return [...new Set(names)].map((name) => `${name}=… `).join('')
}

/**
 * The recorded command line with its placeholders filled from `env`, to run on replay. Refuses,
 * before anything runs, a line whose placeholder's variable is unset or empty, and a line that
 * holds an older agent-tape's `REDACTED`: either would run another command than the recorded
 * one, with a word where the credential was.
 */
export function fillPlaceholders(
  argv: readonly string[],
  placeholders: readonly CommandPlaceholder[],
  env: Record<string, string | undefined>,
  commands: { shown: string; replay: string },
): string[] {
  const old = argv.flatMap((arg, i) =>
    piecesOf(arg).some((p) => 'text' in p && OLD_REDACTION.test(p.text)) ? [i] : [],
  )
  if (old.length > 0) {
    throw new AgentTapeError('ERR_TAPE_USAGE', {
      what: `Cannot replay ${commands.shown} as recorded`,
      why: `${old.length === 1 ? 'argument' : 'arguments'} ${old.join(', ')} of its command ${old.length === 1 ? 'holds' : 'hold'} REDACTED where an older agent-tape kept a credential out of the cassette, and the command would run with that word in its place`,
      fix: `Record it again with this version (agent-tape record --force ${commands.shown} -- <the command>), which keeps placeholders that a replay fills from environment variables, or give the command to run after --: ${commands.replay} -- <the command>. Nothing was run`,
      details: old.map((i) => `  argument ${i}: ${argv[i]}`),
    })
  }
  const filled = argv.map((arg) =>
    piecesOf(arg)
      .map((p) => ('text' in p ? p.text : (env[p.variable] ?? '')))
      .join(''),
  )
  const unset = argv.flatMap((arg, i) =>
    piecesOf(arg).flatMap((p) => ('variable' in p && !env[p.variable] ? [{ arg: i, env: p.variable }] : [])),
  )
  if (unset.length === 0) return filled
  const names = [...new Set(unset.map((u) => u.env))]
  const listed = unset.map(
    (u) => placeholders.find((p) => p.arg === u.arg && p.env === u.env) ?? { arg: u.arg, env: u.env },
  )
  throw new AgentTapeError('ERR_TAPE_USAGE', {
    what: `Cannot replay ${commands.shown}: ${listOf(names.map((n) => `$${n}`))} ${names.length === 1 ? 'is' : 'are'} not set`,
    why: `the recording kept the ${unset.length === 1 ? 'credential' : 'credentials'} of its command out of the cassette, as ${unset.length === 1 ? 'a placeholder' : 'placeholders'} filled from ${names.length === 1 ? 'that variable' : 'those variables'}, and the replay runs the command only with the arguments it was recorded with`,
    fix: `Set ${names.length === 1 ? 'it' : 'them'} to the ${unset.length === 1 ? 'value' : 'values'} the command was recorded with (${variablesToSet(names)}${commands.replay}), or give the command to run after --. Nothing was run`,
    details: describePlaceholders(listed),
  })
}

function listOf(items: readonly string[]): string {
  return items.length <= 1 ? items.join('') : `${items.slice(0, -1).join(', ')} and ${items.at(-1)}`
}
