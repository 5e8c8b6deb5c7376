import {
  isSecretParamName,
  REDACTED_VALUE,
  redactUrlsIn,
  type SecretAllowList,
  SecretScanner,
  secretEnvValues,
} from '@agent-tape/core/internal'
import { quoteShell } from '@agent-tape/runner-kit'

/**
 * A command line as a cassette may keep it: the value of an option named like a credential
 * (`--api-key=…`, `--token …`, `-H 'Authorization: …'` is left to the scanner), a variable
 * assignment named like one (`OPENAI_API_KEY=… node …`), credentials in URLs, secret-shaped
 * strings and the values of this environment's secret variables are replaced. Says which
 * arguments changed, so that the user learns the replay will run them redacted.
 */
export function redactArgv(
  argv: readonly string[],
  env: Record<string, string | undefined>,
  allow: SecretAllowList = [],
): { argv: string[]; redacted: number[] } {
  const scanner = new SecretScanner(secretEnvValues(env), allow)
  const out: string[] = []
  const redacted: number[] = []
  let valueOfSecretOption = false
  argv.forEach((arg, i) => {
    let next: string
    const option = /^(--?[A-Za-z][\w.-]*)(=([\s\S]*))?$/.exec(arg)
    const assignment = /^([A-Za-z_][A-Za-z0-9_]*)=([\s\S]*)$/.exec(arg)
    if (valueOfSecretOption && !arg.startsWith('-')) next = REDACTED_VALUE
    else if (option?.[2] !== undefined && isSecretParamName(option[1]!))
      next = `${option[1]}=${REDACTED_VALUE}`
    else if (assignment && isSecretParamName(assignment[1]!)) next = `${assignment[1]}=${REDACTED_VALUE}`
    else next = redactUrlsIn(scanner.redactText(arg))
    valueOfSecretOption = option !== null && option[2] === undefined && isSecretParamName(option[1]!)
    if (next !== arg) redacted.push(i)
    out.push(next)
  })
  return { argv: out, redacted }
}

/** A command line to print, each argument quoted for a POSIX shell where it needs to be. */
export function displayCommand(argv: readonly string[]): string {
  return argv.map(quoteShell).join(' ')
}
