import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import type { FakeProvider } from '@agent-tape/fake-provider'
import { afterAll, beforeAll, expect, it } from 'vitest'
import { REPO_ROOT } from '../support/fixture-project.js'
import { agentEnv, agentProject, cli, readCassette, startAgentProvider } from './support.js'

// A command line is replayed as it was recorded: what holds no credential is kept as typed
// (whatever its option is named), and each credential is kept out of the cassette as a
// placeholder that the replay fills from an environment variable, or refuses to run without.
let provider: FakeProvider
const project = agentProject('command-line-credentials')
const dir = project.dir

const MYSQL_PW = 'S3cret-mysql-1'
const CURL_PW = 'S3cret-curl-22'
const SSH_PW = 'S3cret-ssh-333'
const DB_PASSWORD = 'Zq8-hunter-22x'
/** mysql, curl and sshpass with their passwords, and a value of the environment's $DB_PASSWORD. */
const WITH_CREDENTIALS = [
  'mysql',
  `-p${MYSQL_PW}`,
  'curl',
  '-u',
  `admin:${CURL_PW}`,
  'sshpass',
  '-p',
  SSH_PW,
  'ssh',
  '-p',
  '22',
  '--db-pass',
  DB_PASSWORD,
]
const SECRETS = [MYSQL_PW, CURL_PW, SSH_PW, DB_PASSWORD]

beforeAll(async () => {
  provider = await startAgentProvider()
  project.write('runs/.keep', '')
  // The agent, which first writes the arguments it was given where the test reads them.
  project.write(
    'argv-agent.mjs',
    [
      "import { readFileSync, writeFileSync } from 'node:fs'",
      "import { runAgent } from './run-agent.mjs'",
      "writeFileSync('argv.json', JSON.stringify(process.argv.slice(2)))",
      "console.log('answer:', await runAgent(readFileSync('tasks/issue-412.txt', 'utf8').trim()))",
      '',
    ].join('\n'),
  )
})
afterAll(async () => {
  await provider.close()
  rmSync(dir, { recursive: true, force: true })
})

/** The replay's environment: no API key, no provider URL, nothing of the recording's secrets. */
function replayEnv(extra: Record<string, string> = {}): Record<string, string> {
  return { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/tmp', ...extra }
}

/** The arguments the agent was last run with, and forgets them (the next run writes them again). */
function argsRun(): string[] | undefined {
  const file = join(dir, 'argv.json')
  if (!existsSync(file)) return undefined
  const args = JSON.parse(readFileSync(file, 'utf8')) as string[]
  rmSync(file)
  return args
}

it('replays a command line whose option names only sound like credentials with exactly the arguments recorded', async () => {
  const args = [
    '--session-id',
    's-123',
    '--token-limit',
    '4096',
    '--key-file',
    './k.pem',
    '--password-file',
    '/run/secrets/db',
  ]
  const recorded = await cli(
    ['record', 'runs/ids.jsonl', '--', 'node', 'argv-agent.mjs', ...args],
    dir,
    agentEnv(provider),
  )
  expect(recorded.code, recorded.stderr).toBe(0)
  expect(recorded.stderr).not.toContain('REDACTED')
  expect(argsRun()).toEqual(args)
  expect(readCassette(join(dir, 'runs/ids.jsonl')).header.source).toEqual({
    kind: 'command',
    argv: ['node', 'argv-agent.mjs', ...args],
    cwd: '.',
    exitCode: 0,
    modelEndpoints: [provider.url],
  })

  const replayed = await cli(['replay', 'runs/ids.jsonl'], dir, replayEnv())
  expect(replayed.stderr).toContain('Replayed runs/ids.jsonl cleanly: 12 of 12 decisions')
  expect(replayed.code).toBe(0)
  expect(argsRun()).toEqual(args)
})

it('keeps the passwords of mysql -p, curl -u and sshpass -p as placeholders: in the cassette, the summary and the promoted test', async () => {
  const recorded = await cli(
    ['record', 'runs/db.jsonl', '--', 'node', 'argv-agent.mjs', ...WITH_CREDENTIALS],
    dir,
    agentEnv(provider, { DB_PASSWORD }),
  )
  expect(recorded.code, recorded.stderr).toBe(0)
  expect(argsRun()).toEqual(WITH_CREDENTIALS)
  const text = readFileSync(join(dir, 'runs/db.jsonl'), 'utf8')
  for (const secret of SECRETS) {
    expect(text).not.toContain(secret)
    expect(recorded.stderr).not.toContain(secret)
  }
  expect(readCassette(join(dir, 'runs/db.jsonl')).header.source).toMatchObject({
    argv: [
      'node',
      'argv-agent.mjs',
      'mysql',
      '-p[REDACTED:$AGENT_TAPE_ARG_3]',
      'curl',
      '-u',
      'admin:[REDACTED:$AGENT_TAPE_ARG_6]',
      'sshpass',
      '-p',
      '[REDACTED:$AGENT_TAPE_ARG_9]',
      'ssh',
      '-p',
      '22',
      '--db-pass',
      '[REDACTED:$DB_PASSWORD]',
    ],
    placeholders: [
      { arg: 3, env: 'AGENT_TAPE_ARG_3', option: '-p' },
      { arg: 6, env: 'AGENT_TAPE_ARG_6', option: '-u' },
      { arg: 9, env: 'AGENT_TAPE_ARG_9', option: '-p' },
      { arg: 14, env: 'DB_PASSWORD', option: '--db-pass' },
    ],
  })
  expect(recorded.stderr).toContain(
    [
      'Replay it with: AGENT_TAPE_ARG_3=… AGENT_TAPE_ARG_6=… AGENT_TAPE_ARG_9=… DB_PASSWORD=… npx --no-install agent-tape replay runs/db.jsonl',
      'Note: the command line held credentials, kept out of the cassette as placeholders [REDACTED:$NAME] (arguments counted from 0, the program); a replay runs the command with each filled from the variable NAME, and refuses to run while one is unset:',
      '  argument 3 (the value of -p of mysql): $AGENT_TAPE_ARG_3',
      '  argument 6 (the password in -u of curl): $AGENT_TAPE_ARG_6',
      '  argument 9 (the value of -p of sshpass): $AGENT_TAPE_ARG_9',
      '  argument 14 (the value of $DB_PASSWORD, after --db-pass): $DB_PASSWORD',
    ].join('\n'),
  )

  const promoted = await cli(
    ['promote', 'runs/db.jsonl', '--name', 'db', '--test', 'test/db.test.ts', '--runner', 'vitest'],
    dir,
    {},
  )
  expect(promoted.code, promoted.stderr).toBe(0)
  const test = project.read('test/db.test.ts')
  for (const secret of SECRETS) expect(test).not.toContain(secret)
  expect(test).toContain(
    '// Recorded command: node argv-agent.mjs mysql -p[REDACTED:$AGENT_TAPE_ARG_3] curl -u admin:[REDACTED:$AGENT_TAPE_ARG_6] sshpass -p [REDACTED:$AGENT_TAPE_ARG_9] ssh -p 22 --db-pass… (in .), recorded',
  )
  expect(test).toContain(
    '// Its credentials are placeholders, filled from $AGENT_TAPE_ARG_3, $AGENT_TAPE_ARG_6, $AGENT_TAPE_ARG_9, $DB_PASSWORD: set them where the test runs.\n',
  )
  // The promoted test replays with the variables set, as the command line was recorded.
  const vitest = join(REPO_ROOT, 'node_modules/vitest/vitest.mjs')
  const variables = {
    AGENT_TAPE_ARG_3: MYSQL_PW,
    AGENT_TAPE_ARG_6: CURL_PW,
    AGENT_TAPE_ARG_9: SSH_PW,
    DB_PASSWORD,
    OPENAI_API_KEY: '',
    OPENAI_BASE_URL: '',
  }
  const run = await project.run(`"${process.execPath}" "${vitest}" run test/db.test.ts`, variables)
  expect(run.code, run.output).toBe(0)
  expect(argsRun()).toEqual(WITH_CREDENTIALS)
}, 180_000)

it('refuses to replay, before running anything, while a placeholder variable is unset, and runs the recorded arguments once it is set', async () => {
  const connections = provider.connections
  const refused = await cli(
    ['replay', 'runs/db.jsonl'],
    dir,
    replayEnv({ AGENT_TAPE_ARG_3: MYSQL_PW, DB_PASSWORD }),
  )
  expect(refused.code).toBe(2)
  expect(refused.stderr).toBe(
    [
      '[agent-tape] Cannot replay runs/db.jsonl: $AGENT_TAPE_ARG_6 and $AGENT_TAPE_ARG_9 are not set: the recording kept the credentials of its command out of the cassette, as placeholders filled from those variables, and the replay runs the command only with the arguments it was recorded with. Set them to the values the command was recorded with (AGENT_TAPE_ARG_6=… AGENT_TAPE_ARG_9=… npx --no-install agent-tape replay runs/db.jsonl), or give the command to run after --. Nothing was run.',
      '',
      '  argument 6 (after -u): $AGENT_TAPE_ARG_6',
      '  argument 9 (after -p): $AGENT_TAPE_ARG_9',
      '',
    ].join('\n'),
  )
  expect(argsRun()).toBeUndefined()

  const replayed = await cli(
    ['replay', 'runs/db.jsonl'],
    dir,
    replayEnv({
      AGENT_TAPE_ARG_3: MYSQL_PW,
      AGENT_TAPE_ARG_6: CURL_PW,
      AGENT_TAPE_ARG_9: SSH_PW,
      DB_PASSWORD,
    }),
  )
  expect(replayed.stderr).toContain('Replayed runs/db.jsonl cleanly')
  expect(replayed.code).toBe(0)
  expect(argsRun()).toEqual(WITH_CREDENTIALS)
  expect(provider.connections).toBe(connections)
})

it('fills a provider key the command line held with the placeholder key a replay gives, so that no key is needed', async () => {
  const key = 'sk-proj-Ab3dEf6hIj9kLm2nOp5qRs8tUv1wXy4zAb7cDe0fGh3iJk6lMn9o'
  const recorded = await cli(
    ['record', 'runs/key.jsonl', '--', 'node', 'argv-agent.mjs', '--api-key', key],
    dir,
    agentEnv(provider, { OPENAI_API_KEY: key }),
  )
  expect(recorded.code, recorded.stderr).toBe(0)
  expect(argsRun()).toEqual(['--api-key', key])
  expect(readCassette(join(dir, 'runs/key.jsonl')).header.source).toMatchObject({
    argv: ['node', 'argv-agent.mjs', '--api-key', '[REDACTED:$OPENAI_API_KEY]'],
    placeholders: [{ arg: 3, env: 'OPENAI_API_KEY', option: '--api-key' }],
  })
  const replayed = await cli(['replay', 'runs/key.jsonl'], dir, replayEnv())
  expect(replayed.stderr).toContain('Replayed runs/key.jsonl cleanly')
  const args = argsRun()
  expect(args).toHaveLength(2)
  expect(args![1]).not.toBe(key)
  expect(args![1]).not.toContain('REDACTED')
})

it('refuses to replay a cassette an older version recorded with REDACTED in its command line', async () => {
  const file = join(dir, 'runs/ids.jsonl')
  const [header, ...rest] = readFileSync(file, 'utf8').split('\n')
  const old = JSON.parse(header!)
  old.source.argv = ['node', 'argv-agent.mjs', '--session-id', 'REDACTED', '--token', 'REDACTED']
  writeFileSync(join(dir, 'runs/old.jsonl'), [JSON.stringify(old), ...rest].join('\n'))
  const refused = await cli(['replay', 'runs/old.jsonl'], dir, replayEnv())
  expect(refused.code).toBe(2)
  expect(refused.stderr).toBe(
    [
      '[agent-tape] Cannot replay runs/old.jsonl as recorded: arguments 3, 5 of its command hold REDACTED where an older agent-tape kept a credential out of the cassette, and the command would run with that word in its place. Record it again with this version (agent-tape record --force runs/old.jsonl -- <the command>), which keeps placeholders that a replay fills from environment variables, or give the command to run after --: npx --no-install agent-tape replay runs/old.jsonl -- <the command>. Nothing was run.',
      '',
      '  argument 3: REDACTED',
      '  argument 5: REDACTED',
      '',
    ].join('\n'),
  )
  expect(argsRun()).toBeUndefined()
})

it('refuses to promote into a test that would hold a secret, writing nothing and printing at most 4 characters of it', async () => {
  const token = 'ghp_A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8'
  const refused = await cli(
    ['promote', 'runs/ids.jsonl', '--name', token, '--test', 'test/leak.test.ts', '--runner', 'vitest'],
    dir,
    {},
  )
  expect(refused.code).toBe(1)
  expect(refused.stderr).toBe(
    '[agent-tape] Refusing to promote runs/ids.jsonl: the test it would write to test/leak.test.ts holds a GitHub token (ghp_… (40 chars)), and a test is committed. Keep the secret out of --name, --test and the recorded command (record it again), or, if the value is not a secret, pass it with --allow-secret. Nothing was written.\n',
  )
  expect(refused.output).toBe('')
  expect(existsSync(join(dir, 'test/leak.test.ts'))).toBe(false)
  expect(existsSync(join(dir, `test/__cassettes__/leak.test.ts/${token}.jsonl`))).toBe(false)
})
