import { describe, expect, it } from 'vitest'
import { displayCommand, redactArgv, rerunnableCommand } from './command-line.js'

const OPENAI_KEY = 'sk-proj-Ab3dEf6hIj9kLm2nOp5qRs8tUv1wXy4zAb7cDe0fGh3iJk6lMn9o'
const ENV = { DB_PASSWORD: 'Zq8-hunter-22x', SERVICE_TOKEN: 'held-in-env' }

/** The command line as the cassette keeps it. */
function stored(argv: readonly string[], allow: readonly string[] = []): string[] {
  return redactArgv(argv, ENV, allow).argv
}

describe('keeps as typed what holds no credential, whatever the option is named', () => {
  it.each([
    [['node', 'agent.mjs', '--session-id', 's-123', '--token-limit', '4096']],
    [['node', 'agent.mjs', '--key-file', './k.pem', '--password-file', '/run/secrets/db']],
    [['node', 'agent.mjs', '--session-id=s-123', '--token-limit=4096', '--key-file=./k.pem']],
    [['node', 'agent.mjs', '--max-tokens', '4096', '--token-type', 'bearer']],
    [['node', 'agent.mjs', '--api-key-id', 'AKID-2024-01', '--secret-name', 'prod-db']],
    [['node', 'agent.mjs', '--key', './certs/client.pem', '--auth', 'oauth']],
    [['node', 'agent.mjs', '--page-token=cursor-1', '--task', 'refund INV-412']],
    // biome-ignore lint/suspicious/noTemplateCurlyInString: a variable the shell did not expand
    [['node', 'agent.mjs', '--auth-token', '$AUTH_TOKEN', '--password', '${DB_PASSWORD}']],
    // A flag that prompts for the password: the next option is no value of it.
    [['node', 'agent.mjs', '--password', '--verbose']],
    // `-p` is a port, or nothing known, outside the MySQL clients and sshpass.
    [['node', 'server.mjs', '-p', '8080']],
    [['node', 'server.mjs', '-p8080']],
    [['ssh', '-p', '22', 'db.internal']],
    // The MySQL clients take `-p` glued only: apart, it prompts, and the next word is the database.
    [['mysql', '-u', 'root', '-p', 'app']],
    [['mysql', '-h', 'db', '-P3306', 'app']],
    // curl prompts when the user comes without a password.
    [['curl', '-u', 'admin', 'https://api.example.org/v1']],
    [['curl', '--user=admin:', 'https://api.example.org/v1']],
    [['PGPORT=5432', 'DB_PASSWORD_FILE=/run/secrets/db', 'psql', 'app']],
    [['node', 'agent.mjs', 'https://api.example.org/v1/charges?page=2&limit=10']],
    [['node', 'agent.mjs', '--model', 'gpt-4o-mini', '--region', 'us-east-1']],
    [['npx', 'tsx', 'src/agent.ts', '--', '--task', "it's refunded"]],
    // URLs whose credentials are stand-ins, references, ids or public keys.
    [['node', 'agent.mjs', 'postgres://user:password@localhost:5432/db']],
    [['node', 'agent.mjs', 'https://user:token@github.com/acme/repo.git']],
    // biome-ignore lint/suspicious/noTemplateCurlyInString: a reference pip expands
    [['pip', 'install', '--index-url', 'https://ci:${PIP_PASSWORD}@pypi.internal/simple', 'acme']],
    [['node', 'agent.mjs', 'https://api.example.org/v1/invoices?key=INV-412']],
    [['node', 'agent.mjs', '--dsn', 'https://3f2a9c1d8b4e0d7a6c5b4a39281706f5@o1.ingest.sentry.io/42']],
  ])('%j', (argv) => {
    expect(redactArgv(argv, ENV)).toEqual({ argv, placeholders: [] })
  })
})

describe('stores a credential as a placeholder named for the variable a replay fills it from', () => {
  it.each([
    // The known options: their value is a credential, whatever it looks like.
    [
      ['mysql', '-u', 'root', '-phunter2', 'app'],
      ['mysql', '-u', 'root', '-p[REDACTED:$AGENT_TAPE_ARG_3]', 'app'],
    ],
    [
      ['/usr/bin/mysqldump', '-pabc', 'app'],
      ['/usr/bin/mysqldump', '-p[REDACTED:$AGENT_TAPE_ARG_1]', 'app'],
    ],
    [
      ['mariadb-admin', '-ps3cr3t', 'status'],
      ['mariadb-admin', '-p[REDACTED:$AGENT_TAPE_ARG_1]', 'status'],
    ],
    // A later argument names the program, as for a script that runs the program it is given.
    [
      ['node', 'db.mjs', 'mysql', '-phunter2'],
      ['node', 'db.mjs', 'mysql', '-p[REDACTED:$AGENT_TAPE_ARG_3]'],
    ],
    [
      ['docker', 'exec', 'db', 'mysql', '-pX'],
      ['docker', 'exec', 'db', 'mysql', '-p[REDACTED:$AGENT_TAPE_ARG_4]'],
    ],
    [
      ['curl', '-u', 'admin:hunter2', 'https://api.example.org'],
      ['curl', '-u', 'admin:[REDACTED:$AGENT_TAPE_ARG_2]', 'https://api.example.org'],
    ],
    [
      ['curl', '-uadmin:pw:with:colons'],
      ['curl', '-uadmin:[REDACTED:$AGENT_TAPE_ARG_1]'],
    ],
    [
      ['curl.exe', '--user=admin:hunter2'],
      ['curl.exe', '--user=admin:[REDACTED:$AGENT_TAPE_ARG_1]'],
    ],
    [
      ['curl', '--user', 'admin:hunter2'],
      ['curl', '--user', 'admin:[REDACTED:$AGENT_TAPE_ARG_2]'],
    ],
    [
      ['curl', '--proxy-user', 'bob:pw123', '-U', 'bob:pw456'],
      ['curl', '--proxy-user', 'bob:[REDACTED:$AGENT_TAPE_ARG_2]', '-U', 'bob:[REDACTED:$AGENT_TAPE_ARG_4]'],
    ],
    // sshpass reads its options up to the command it runs: ssh's `-p 22` is a port.
    [
      ['sshpass', '-p', 'pw', 'ssh', '-p', '22', 'host'],
      ['sshpass', '-p', '[REDACTED:$AGENT_TAPE_ARG_2]', 'ssh', '-p', '22', 'host'],
    ],
    [
      ['sshpass', '-p-starts-with-dash', 'ssh', 'host'],
      ['sshpass', '-p[REDACTED:$AGENT_TAPE_ARG_1]', 'ssh', 'host'],
    ],
    [
      ['node', 'a.mjs', '--password', 'hunter2'],
      ['node', 'a.mjs', '--password', '[REDACTED:$AGENT_TAPE_ARG_3]'],
    ],
    [
      ['node', 'a.mjs', '--password=changeme'],
      ['node', 'a.mjs', '--password=[REDACTED:$AGENT_TAPE_ARG_2]'],
    ],
    [
      ['node', 'a.mjs', '--passwd', 'x1'],
      ['node', 'a.mjs', '--passwd', '[REDACTED:$AGENT_TAPE_ARG_3]'],
    ],
    [
      ['node', 'a.mjs', '--api-key=abc'],
      ['node', 'a.mjs', '--api-key=[REDACTED:$AGENT_TAPE_ARG_2]'],
    ],
    [
      ['node', 'a.mjs', '--token', 'abc123'],
      ['node', 'a.mjs', '--token', '[REDACTED:$AGENT_TAPE_ARG_3]'],
    ],
    [
      ['node', 'a.mjs', '--secret', 's3cr3t'],
      ['node', 'a.mjs', '--secret', '[REDACTED:$AGENT_TAPE_ARG_3]'],
    ],
    [
      ['node', 'a.mjs', '--client-secret=abc'],
      ['node', 'a.mjs', '--client-secret=[REDACTED:$AGENT_TAPE_ARG_2]'],
    ],
    [
      ['PGPASSWORD=hunter2', 'psql', 'app'],
      ['PGPASSWORD=[REDACTED:$AGENT_TAPE_ARG_0]', 'psql', 'app'],
    ],
    [
      ['MYSQL_PWD=pw', 'mysql', 'app'],
      ['MYSQL_PWD=[REDACTED:$AGENT_TAPE_ARG_0]', 'mysql', 'app'],
    ],
    // Any other option or assignment: by its name and its value together.
    [
      ['node', 'a.mjs', '--auth-token', '8fK2mQ9xLp3vR7tZ1wYb'],
      ['node', 'a.mjs', '--auth-token', '[REDACTED:$AGENT_TAPE_ARG_3]'],
    ],
    [
      ['APP_PASSWORD=hunter22', 'node', 'a.mjs'],
      ['APP_PASSWORD=[REDACTED:$AGENT_TAPE_ARG_0]', 'node', 'a.mjs'],
    ],
    [
      ['node', 'a.mjs', '--db-password=Tr0ub4dor&3'],
      ['node', 'a.mjs', '--db-password=[REDACTED:$AGENT_TAPE_ARG_2]'],
    ],
    // By shape, wherever it is.
    [
      ['node', 'a.mjs', `--note=${OPENAI_KEY}`],
      ['node', 'a.mjs', '--note=[REDACTED:$AGENT_TAPE_ARG_2]'],
    ],
    [
      ['node', 'a.mjs', OPENAI_KEY],
      ['node', 'a.mjs', '[REDACTED:$AGENT_TAPE_ARG_2]'],
    ],
    [
      ['curl', '-H', 'Authorization: Bearer 8fK2mQ9xLp3vR7tZ1wYbAb3dEf6h', 'https://api'],
      ['curl', '-H', 'Authorization: Bearer [REDACTED:$AGENT_TAPE_ARG_2]', 'https://api'],
    ],
    // In URLs: the credential, the rest of the URL kept.
    [
      ['node', 'a.mjs', 'postgres://app:hunter2@db/app'],
      ['node', 'a.mjs', 'postgres://app:[REDACTED:$AGENT_TAPE_ARG_2]@db/app'],
    ],
    [
      ['git', 'clone', 'https://sometoken12345678@github.com/x/y'],
      ['git', 'clone', 'https://[REDACTED:$AGENT_TAPE_ARG_2]@github.com/x/y'],
    ],
    [
      ['node', 'a.mjs', 'https://api.example.org/v1?api_key=Zx8Yw2Vq7Lm4&page=2'],
      ['node', 'a.mjs', 'https://api.example.org/v1?api_key=[REDACTED:$AGENT_TAPE_ARG_2]&page=2'],
    ],
    // Two secrets of one argument share its one variable: from the first to the last.
    [
      ['x', 'https://u:Pw7xK2mQ9z@h/x?token=Tq7Lm2Zx9Wv4Ks8Np3Rb&page=2'],
      ['x', 'https://u:[REDACTED:$AGENT_TAPE_ARG_1]&page=2'],
    ],
    // An environment secret's value is filled from its variable.
    [
      ['node', 'a.mjs', '--db-pass', 'Zq8-hunter-22x'],
      ['node', 'a.mjs', '--db-pass', '[REDACTED:$DB_PASSWORD]'],
    ],
    [
      ['node', 'a.mjs', '--dsn=postgres://app:Zq8-hunter-22x@db/app'],
      ['node', 'a.mjs', '--dsn=postgres://app:[REDACTED:$DB_PASSWORD]@db/app'],
    ],
    [
      ['curl', '-u', 'admin:Zq8-hunter-22x'],
      ['curl', '-u', 'admin:[REDACTED:$DB_PASSWORD]'],
    ],
    [
      ['node', 'a.mjs', 'held-in-env'],
      ['node', 'a.mjs', '[REDACTED:$SERVICE_TOKEN]'],
    ],
    // A secret inside what the argument encodes: the argument goes whole.
    [
      ['node', 'a.mjs', Buffer.from(JSON.stringify({ key: OPENAI_KEY })).toString('base64')],
      ['node', 'a.mjs', '[REDACTED:$AGENT_TAPE_ARG_2]'],
    ],
  ])('%j', (argv, expected) => {
    expect(stored(argv)).toEqual(expected)
  })
})

it('records each placeholder with its argument, the option it belongs to and its variable', () => {
  const { placeholders } = redactArgv(
    [
      'PGPASSWORD=hunter2',
      'node',
      'db.mjs',
      'mysql',
      '-phunter2',
      '--db-pass',
      'Zq8-hunter-22x',
      '-H',
      'Authorization: Bearer 8fK2mQ9xLp3vR7tZ1wYbAb3dEf6h',
      'curl',
      '-u',
      'admin:hunter2',
      'https://u:Zq8-hunter-22x@h/?k=Zq8-hunter-22x',
    ],
    ENV,
  )
  expect(placeholders).toEqual([
    { arg: 0, env: 'AGENT_TAPE_ARG_0', option: 'PGPASSWORD=', what: 'the value of PGPASSWORD=' },
    { arg: 4, env: 'AGENT_TAPE_ARG_4', option: '-p', what: 'the value of -p of mysql' },
    { arg: 6, env: 'DB_PASSWORD', option: '--db-pass', what: 'the value of $DB_PASSWORD' },
    { arg: 8, env: 'AGENT_TAPE_ARG_8', option: '-H', what: 'a bearer token' },
    { arg: 11, env: 'AGENT_TAPE_ARG_11', option: '-u', what: 'the password in -u of curl' },
    { arg: 12, env: 'DB_PASSWORD', what: 'the value of $DB_PASSWORD' },
  ])
})

it('keeps a value the allow list accepts', () => {
  expect(
    stored(['node', 'a.mjs', '--token', 'abc123', `--note=${OPENAI_KEY}`], ['abc123', OPENAI_KEY]),
  ).toEqual(['node', 'a.mjs', '--token', 'abc123', `--note=${OPENAI_KEY}`])
})

it('quotes the arguments of a command line to print only where a shell needs it', () => {
  expect(displayCommand(['node', 'dist/agent.js', '--task', "it's refunded"])).toBe(
    "node dist/agent.js --task 'it'\\''s refunded'",
  )
  expect(displayCommand(['mysql', '-p[REDACTED:$AGENT_TAPE_ARG_1]'])).toBe(
    "mysql '-p[REDACTED:$AGENT_TAPE_ARG_1]'",
  )
})

it('writes a recorded command line to run again with its placeholders as the variables they are filled from', () => {
  expect(
    rerunnableCommand([
      'mysql',
      '-p[REDACTED:$AGENT_TAPE_ARG_1]',
      'curl',
      '-u',
      'admin:[REDACTED:$DB_PASSWORD]',
      '[REDACTED:$AGENT_TAPE_ARG_5]',
      "it's",
    ]),
  ).toBe(`mysql -p"\${AGENT_TAPE_ARG_1}" curl -u admin:"\${DB_PASSWORD}" "\${AGENT_TAPE_ARG_5}" 'it'\\''s'`)
})
