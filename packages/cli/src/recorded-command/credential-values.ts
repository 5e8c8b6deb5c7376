import { credentialName, isCredentialValue, type NameStrength } from '@agent-tape/core/internal'
import type { SecretSpan } from './argument-spans.js'
import {
  attachedOption,
  type CredentialOption,
  credentialOption,
  optionsEndAtCommand,
  programOf,
} from './credential-options.js'

/** A credential an option or an assignment holds: in argument `arg`, at `start`..`end`. */
export interface OptionSecret extends SecretSpan {
  arg: number
  /** The option (`--password`, `-p`) or the assignment (`PGPASSWORD=`) it is the value of. */
  option: string
}

export const OPTION = /^(--?[A-Za-z][\w.-]*)(?:=([\s\S]*))?$/
const ASSIGNMENT = /^([A-Za-z_][A-Za-z0-9_]*)=([\s\S]*)$/
/** `$DB_PASSWORD` that the shell was told not to expand: a reference, no secret. */
const VARIABLE_REFERENCE = /^\$\{?[A-Za-z_]\w*\}?$/

/** An option waiting for its value in the next argument. */
interface Pending {
  option: string
  row?: CredentialOption
  strength?: NameStrength
}

/**
 * The values that options and assignments of a command line hold as credentials. A value of a
 * known credential option (`credential-options.ts`) is one whatever it looks like: `-pabc` under
 * mysql, `--token abc123`. Any other option or assignment counts by its name and its value
 * together, as a JSON member or a setting in text does (`credentialName`, `isCredentialValue`):
 * `--auth-token <random>` does, and `--session-id s-123`, `--token-limit 4096`,
 * `--key-file ./k.pem` and `--password-file /run/secrets/db` do not, since a qualifier word, a
 * number or a path says the value is about a credential and is not one.
 */
export function credentialValues(argv: readonly string[]): OptionSecret[] {
  const found: OptionSecret[] = []
  const add = (arg: number, start: number, option: string, row: CredentialOption | undefined) => {
    const value = argv[arg]!.slice(start)
    if (row?.secret === 'password') {
      // curl's `user:password`; a user alone makes curl prompt for the password.
      const colon = value.indexOf(':')
      if (colon === -1 || colon === value.length - 1) return
      start += colon + 1
    }
    const secret = argv[arg]!.slice(start)
    if (secret === '' || VARIABLE_REFERENCE.test(secret)) return
    const of = row?.program ? `${option} of ${row.program}` : option
    const what = row?.secret === 'password' ? `the password in ${of}` : `the value of ${of}`
    found.push({ arg, start, end: argv[arg]!.length, option, what })
  }
  const isCredential = (name: string, value: string, row: CredentialOption | undefined) => {
    if (row) return true
    const strength = credentialName(name)
    return strength !== undefined && isCredentialValue(strength, value)
  }
  let program: string | undefined
  let pending: Pending | undefined
  argv.forEach((arg, i) => {
    const waiting = pending
    pending = undefined
    // A program's credential option requires its value, whatever it looks like; an option of
    // every program is left alone before another option (`--password --verbose`: it prompts).
    if (waiting && (waiting.row?.program !== undefined || !OPTION.test(arg))) {
      if (isCredential(waiting.option, arg, waiting.row)) add(i, 0, waiting.option, waiting.row)
      return
    }
    const assignment = ASSIGNMENT.exec(arg)
    if (assignment) {
      const [, name, value] = assignment as unknown as [string, string, string]
      const row = credentialOption(name, 'assignment', program)
      if (isCredential(name, value, row)) add(i, name.length + 1, `${name}=`, row)
      return
    }
    const attached = attachedOption(arg, program)
    if (attached) {
      add(i, 2, attached.row.option, attached.row)
      return
    }
    const option = OPTION.exec(arg)
    if (option) {
      const [, name, value] = option as unknown as [string, string, string | undefined]
      if (value !== undefined) {
        const row = credentialOption(name, 'equals', program)
        if (isCredential(name, value, row)) add(i, name.length + 1, name, row)
        return
      }
      const row = credentialOption(name, 'next', program)
      const strength = row ? undefined : credentialName(name)
      if (row || strength)
        pending = { option: name, ...(row ? { row } : {}), ...(strength ? { strength } : {}) }
      return
    }
    const named = programOf(arg)
    if (named) program = named
    else if (program && optionsEndAtCommand(program)) program = undefined
  })
  return found
}
