import {
  type CommandPlaceholder,
  type EnvSecret,
  type SecretAllowList,
  SecretScanner,
  secretEnvValues,
} from '@agent-tape/core/internal'
import { quoteShell } from '@agent-tape/runner-kit'
import { argumentVariable, PLACEHOLDER, piecesOf, placeholderText } from './argument-placeholders.js'
import { placeholderParts, type SecretSpan } from './argument-spans.js'
import { credentialValues, OPTION } from './credential-values.js'
import { urlCredentialSpans } from './url-credentials.js'

/** A placeholder of a recorded command line, with what it stands for (for the record's note). */
export interface ArgumentPlaceholder extends CommandPlaceholder {
  what: string
}

export interface RedactedCommand {
  /** The command line as the cassette keeps it. */
  argv: string[]
  placeholders: ArgumentPlaceholder[]
}

/**
 * A command line as a cassette may keep it: each secret in it replaced by a placeholder
 * `[REDACTED:$NAME]` that a replay fills from the environment variable `NAME`, so that the
 * replay runs the command as it was recorded. A value is a secret by what it is: a secret's
 * shape or an environment secret's value (the scanner), URL credentials, or the value of a
 * credential option (`credential-values.ts`). A value that is an environment secret's is filled
 * from that variable; any other from `AGENT_TAPE_ARG_<index>`. Only the secret part of an
 * argument is replaced (`admin:<pw>` keeps `admin:`), and the whole argument when the secret is
 * inside something the argument encodes (a base64 blob, a JSON text).
 */
export function redactArgv(
  argv: readonly string[],
  env: Record<string, string | undefined>,
  allow: SecretAllowList = [],
): RedactedCommand {
  const secrets = secretEnvValues(env).filter((s) => !isAllowed(s.value, allow))
  const scanner = new SecretScanner(secrets, allow)
  const options = new Map<number, (SecretSpan & { option: string })[]>()
  for (const found of credentialValues(argv))
    options.set(found.arg, [...(options.get(found.arg) ?? []), found])
  const out: string[] = []
  const placeholders: ArgumentPlaceholder[] = []
  argv.forEach((arg, i) => {
    const known = options.get(i) ?? []
    const spans = [
      ...envSpans(secrets, arg),
      ...known,
      ...scannerSpans(scanner, arg),
      ...urlCredentialSpans(arg),
    ].filter((s) => !isAllowed(arg.slice(s.start, s.end), allow))
    if (spans.length === 0 && !scanner.hasSecret(arg)) {
      out.push(arg)
      return
    }
    let parts = placeholderParts(spans)
    let stored = withPlaceholders(arg, parts, i)
    // Read with each placeholder as the plain word an older version wrote: `[REDACTED:$X]` in a
    // URL's user info would read as a user `[REDACTED` with the password `$X]`.
    if (parts.length === 0 || scanner.hasSecret(stored.replace(PLACEHOLDER, 'REDACTED'))) {
      // The secret is (also) inside something the argument encodes: the argument goes whole.
      const label = scanner.findInJson(stored)[0]?.label ?? 'a secret'
      parts = [{ start: 0, end: arg.length, what: `${label}, encoded in it` }]
      stored = placeholderText(argumentVariable(i))
    }
    out.push(stored)
    const option = known[0]?.option ?? optionBefore(argv, i)
    for (const part of parts) {
      const name = part.env ?? argumentVariable(i)
      if (placeholders.some((p) => p.arg === i && p.env === name)) continue
      placeholders.push({ arg: i, env: name, ...(option ? { option } : {}), what: part.what })
    }
  })
  return { argv: out, placeholders }
}

/** The secret shapes in an argument (the environment's values are {@link envSpans}'). */
function scannerSpans(scanner: SecretScanner, arg: string): SecretSpan[] {
  return scanner
    .matches(arg)
    .filter((m) => !m.rule.startsWith('env:'))
    .map((m) => ({ start: m.start, end: m.end, what: m.label }))
}

/**
 * Where the environment's secret values are in an argument, as the scanner finds them (a short
 * value only as a whole word), each with its variable: read apart from the shapes, since the
 * scanner keeps one of two matches at the same place, and a password in a URL is both.
 */
function envSpans(secrets: readonly EnvSecret[], arg: string): SecretSpan[] {
  const spans: SecretSpan[] = []
  for (const { name, value } of secrets) {
    for (let at = arg.indexOf(value); at !== -1; at = arg.indexOf(value, at + 1)) {
      const end = at + value.length
      if (value.length < 12 && (/[A-Za-z0-9]/.test(arg[at - 1] ?? '') || /[A-Za-z0-9]/.test(arg[end] ?? '')))
        continue
      spans.push({ start: at, end, env: name, what: `the value of $${name}` })
    }
  }
  return spans
}

function withPlaceholders(arg: string, parts: readonly SecretSpan[], index: number): string {
  let out = ''
  let from = 0
  for (const part of parts) {
    out += arg.slice(from, part.start) + placeholderText(part.env ?? argumentVariable(index))
    from = part.end
  }
  return out + arg.slice(from)
}

/** The option a value belongs to: its own name (`--note=…`), or the option before it (`-H …`). */
function optionBefore(argv: readonly string[], i: number): string | undefined {
  const own = OPTION.exec(argv[i]!)
  if (own) return own[2] === undefined ? undefined : own[1]
  const before = i > 0 ? OPTION.exec(argv[i - 1]!) : null
  return before && before[2] === undefined ? before[1] : undefined
}

function isAllowed(value: string, allow: SecretAllowList): boolean {
  return allow.some((entry) =>
    typeof entry === 'string'
      ? entry === value
      : new RegExp(entry.source, entry.flags.replace(/[gy]/g, '')).test(value),
  )
}

/** A command line to print, each argument quoted for a POSIX shell where it needs to be. */
export function displayCommand(argv: readonly string[]): string {
  return argv.map(quoteShell).join(' ')
}

/**
 * A recorded command line to run again from a shell: each placeholder written as the variable
 * it is filled from (`-p"${AGENT_TAPE_ARG_1}"`), so that the line is what a user pastes to
 * record the command again, and holds no secret.
 */
export function rerunnableCommand(argv: readonly string[]): string {
  return argv
    .map((arg) =>
      piecesOf(arg)
        .map((piece) => ('variable' in piece ? `"\${${piece.variable}}"` : quoteShell(piece.text)))
        .join(''),
    )
    .join(' ')
}
