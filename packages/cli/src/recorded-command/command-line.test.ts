import { expect, it } from 'vitest'
import { displayCommand, redactArgv } from './command-line.js'

it('redacts the values of credential options, assignments, URL credentials and secret-shaped strings', () => {
  const key = 'sk-proj-Ab3dEf6hIj9kLm2nOp5qRs8tUv1wXy4zAb7cDe0fGh3iJk6lMn9o'
  const { argv, redacted } = redactArgv(
    [
      'OPENAI_API_KEY=abc',
      'node',
      'agent.js',
      '--api-key=abc',
      '--token',
      'abc',
      '--password',
      '--verbose',
      '--page-token=cursor-1',
      `--note=${key}`,
      'postgres://app:hunter2@db/app',
      '--task',
      'refund INV-412',
      'held-in-env',
    ],
    { SERVICE_TOKEN: 'held-in-env' },
  )
  expect(argv).toEqual([
    'OPENAI_API_KEY=REDACTED',
    'node',
    'agent.js',
    '--api-key=REDACTED',
    '--token',
    'REDACTED',
    '--password',
    '--verbose',
    '--page-token=cursor-1',
    '--note=[REDACTED:openai-key]',
    'postgres://app:REDACTED@db/app',
    '--task',
    'refund INV-412',
    '[REDACTED:env:SERVICE_TOKEN]',
  ])
  expect(redacted).toEqual([0, 3, 5, 9, 10, 13])
})

it('quotes the arguments of a command line to print only where a shell needs it', () => {
  expect(displayCommand(['node', 'dist/agent.js', '--task', "it's refunded"])).toBe(
    "node dist/agent.js --task 'it'\\''s refunded'",
  )
})
