import { expect, it } from 'vitest'
import { describePlaceholders, fillPlaceholders, piecesOf } from './argument-placeholders.js'

const COMMANDS = { shown: 'runs/db.jsonl', replay: 'npx --no-install agent-tape replay runs/db.jsonl' }
const ARGV = [
  'node',
  'db.mjs',
  'mysql',
  '-p[REDACTED:$AGENT_TAPE_ARG_3]',
  '--dsn=pg://app:[REDACTED:$DB_PASSWORD]@db',
]
const PLACEHOLDERS = [
  { arg: 3, env: 'AGENT_TAPE_ARG_3', option: '-p' },
  { arg: 4, env: 'DB_PASSWORD', option: '--dsn' },
]

it('cuts a recorded argument into its text and its placeholders', () => {
  expect(piecesOf('admin:[REDACTED:$PW]')).toEqual([{ text: 'admin:' }, { variable: 'PW' }])
  expect(piecesOf('[REDACTED:$A][REDACTED:$B]x')).toEqual([
    { variable: 'A' },
    { variable: 'B' },
    { text: 'x' },
  ])
  expect(piecesOf('')).toEqual([{ text: '' }])
  expect(piecesOf('[REDACTED:openai-key]')).toEqual([{ text: '[REDACTED:openai-key]' }])
})

it('fills each placeholder from the variable it names, and leaves the rest as recorded', () => {
  expect(
    fillPlaceholders(ARGV, PLACEHOLDERS, { AGENT_TAPE_ARG_3: 'hunter2', DB_PASSWORD: 'Zq8-x' }, COMMANDS),
  ).toEqual(['node', 'db.mjs', 'mysql', '-phunter2', '--dsn=pg://app:Zq8-x@db'])
})

it('refuses, naming each argument, its option and its variable, while a variable is unset or empty', () => {
  expect(() => fillPlaceholders(ARGV, PLACEHOLDERS, { DB_PASSWORD: '' }, COMMANDS)).toThrow(
    [
      '[agent-tape] Cannot replay runs/db.jsonl: $AGENT_TAPE_ARG_3 and $DB_PASSWORD are not set: the recording kept the credentials of its command out of the cassette, as placeholders filled from those variables, and the replay runs the command only with the arguments it was recorded with. Set them to the values the command was recorded with (AGENT_TAPE_ARG_3=… DB_PASSWORD=… npx --no-install agent-tape replay runs/db.jsonl), or give the command to run after --. Nothing was run.',
      '',
      '  argument 3 (after -p): $AGENT_TAPE_ARG_3',
      '  argument 4 (after --dsn): $DB_PASSWORD',
    ].join('\n'),
  )
})

it('refuses a command line an older version wrote with REDACTED in it, naming the arguments', () => {
  const old = ['node', 'a.mjs', '--api-key=REDACTED', '--token', 'REDACTED', '[REDACTED:openai-key]']
  expect(() => fillPlaceholders(old, [], {}, COMMANDS)).toThrow(
    [
      '[agent-tape] Cannot replay runs/db.jsonl as recorded: arguments 2, 4, 5 of its command hold REDACTED where an older agent-tape kept a credential out of the cassette, and the command would run with that word in its place. Record it again with this version (agent-tape record --force runs/db.jsonl -- <the command>), which keeps placeholders that a replay fills from environment variables, or give the command to run after --: npx --no-install agent-tape replay runs/db.jsonl -- <the command>. Nothing was run.',
      '',
      '  argument 2: --api-key=REDACTED',
      '  argument 4: REDACTED',
      '  argument 5: [REDACTED:openai-key]',
    ].join('\n'),
  )
})

it('describes each placeholder by what it held and the option it followed', () => {
  expect(
    describePlaceholders([
      { arg: 3, env: 'AGENT_TAPE_ARG_3', option: '-p', what: 'the value of -p of mysql' },
      { arg: 8, env: 'AGENT_TAPE_ARG_8', option: '-H', what: 'a bearer token' },
      { arg: 9, env: 'DB_PASSWORD', what: 'the value of $DB_PASSWORD' },
    ]),
  ).toEqual([
    '  argument 3 (the value of -p of mysql): $AGENT_TAPE_ARG_3',
    '  argument 8 (a bearer token, after -H): $AGENT_TAPE_ARG_8',
    '  argument 9 (the value of $DB_PASSWORD): $DB_PASSWORD',
  ])
})
