/**
 * How an option takes its value: the next argument (`--password hunter2`), glued to a short
 * option (`-phunter2`), after `=` (`--password=hunter2`), or as a variable assignment in front
 * of the command (`PGPASSWORD=hunter2 psql`).
 */
export type ValueForm = 'next' | 'attached' | 'equals' | 'assignment'

/** One option whose value is a credential whatever it looks like. */
export interface CredentialOption {
  /** As written: `--password`, `-p`, or a variable's name for an assignment (`PGPASSWORD`). */
  option: string
  /** The program whose option it is (its file name, `mysql`), `undefined` for every program. */
  program?: string
  forms: readonly ValueForm[]
  /** The part that is secret: the whole value, or what follows its first `:` (curl's `user:password`). */
  secret: 'value' | 'password'
}

function row(
  option: string,
  forms: readonly ValueForm[],
  program?: string,
  secret: CredentialOption['secret'] = 'value',
): CredentialOption {
  return { option, forms, secret, ...(program ? { program } : {}) }
}

const MYSQL_CLIENTS = ['mysql', 'mysqldump', 'mysqladmin', 'mariadb', 'mariadb-dump', 'mariadb-admin']

/**
 * The options known to hold a credential, one row per option and program. An option not in it
 * counts only by what its value is (`command-line.ts`): its name alone says too little, since
 * `--session-id s-123`, `--token-limit 4096` and `--password-file /run/secrets/db` hold none.
 * A row with a program applies to the arguments after that program's name (see
 * {@link programOf}); `-p` is a password only for the MySQL clients and sshpass, and a port
 * elsewhere. Adding an option: one row here, and a case in `command-line.test.ts`.
 */
export const CREDENTIAL_OPTIONS: readonly CredentialOption[] = [
  row('--password', ['next', 'equals']),
  row('--passwd', ['next', 'equals']),
  row('--api-key', ['next', 'equals']),
  row('--token', ['next', 'equals']),
  row('--secret', ['next', 'equals']),
  row('--client-secret', ['next', 'equals']),
  // `-p` takes its password glued on only: `mysql -p db` prompts, and opens the database `db`.
  ...MYSQL_CLIENTS.map((program) => row('-p', ['attached'], program)),
  row('-u', ['next', 'attached'], 'curl', 'password'),
  row('--user', ['next', 'equals'], 'curl', 'password'),
  row('-U', ['next', 'attached'], 'curl', 'password'),
  row('--proxy-user', ['next', 'equals'], 'curl', 'password'),
  row('-p', ['next', 'attached'], 'sshpass'),
  row('PGPASSWORD', ['assignment']),
  row('MYSQL_PWD', ['assignment']),
  row('SSHPASS', ['assignment']),
  row('REDISCLI_AUTH', ['assignment']),
]

/**
 * Programs whose own options end at the first argument that is not one: `sshpass -p <pw> ssh
 * -p 22 host` hands `-p 22` to ssh, where it is a port.
 */
const OPTIONS_END_AT_COMMAND = new Set(['sshpass'])

const PROGRAMS = new Set(CREDENTIAL_OPTIONS.flatMap((r) => (r.program ? [r.program] : [])))

/**
 * The program of the table an argument names (`mysql`, `/usr/bin/curl`, `curl.exe`), if any.
 * Any argument may name one, not only the first: `docker exec db mysql -p…`, `npx …`, or a
 * script that runs the program it is given (`node run.mjs mysql -p…`).
 */
export function programOf(arg: string): string | undefined {
  const name = arg.slice(Math.max(arg.lastIndexOf('/'), arg.lastIndexOf('\\')) + 1).replace(/\.exe$/i, '')
  return PROGRAMS.has(name) ? name : undefined
}

/** Whether the program stops reading options at its first other argument. */
export function optionsEndAtCommand(program: string): boolean {
  return OPTIONS_END_AT_COMMAND.has(program)
}

/** The row for `option` written in `form` under `program` (a row of every program counts too). */
export function credentialOption(
  option: string,
  form: ValueForm,
  program: string | undefined,
): CredentialOption | undefined {
  return CREDENTIAL_OPTIONS.find(
    (r) =>
      r.option === option && r.forms.includes(form) && (r.program === undefined || r.program === program),
  )
}

/** The row of a short option with its value glued on (`-phunter2` under mysql), and the value. */
export function attachedOption(
  arg: string,
  program: string | undefined,
): { row: CredentialOption; value: string } | undefined {
  if (program === undefined || !/^-[A-Za-z]./s.test(arg)) return undefined
  const found = credentialOption(arg.slice(0, 2), 'attached', program)
  return found ? { row: found, value: arg.slice(2) } : undefined
}
