import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { isAgentTapeError, parseCassette } from '@agent-tape/core'
import { expect, it } from 'vitest'
import { REPO_ROOT } from '../support/fixture-project.js'

// Every problem a cassette read reports, pinned: each case damages one field of a cassette that
// has every field (test/golden/fixtures/every-field.jsonl), and the message it fails with is
// compared with the committed one.

type Line = Record<string, unknown>

const LINES: Line[] = readFileSync(join(REPO_ROOT, 'test/golden/fixtures/every-field.jsonl'), 'utf8')
  .trimEnd()
  .split('\n')
  .map((line) => JSON.parse(line))

/** The cassette with `change` applied to a copy of its lines (line 0 is the header). */
function damaged(change: (lines: Line[]) => Line[] | undefined): string {
  const lines = structuredClone(LINES)
  const changed = change(lines) ?? lines
  return `${changed.map((line) => JSON.stringify(line)).join('\n')}\n`
}

const set =
  (index: number, field: string, value: unknown) =>
  (lines: Line[]): undefined => {
    lines[index]![field] = value
  }
const drop =
  (index: number, ...fields: string[]) =>
  (lines: Line[]): undefined => {
    for (const field of fields) delete lines[index]![field]
  }

const both =
  (...changes: ((lines: Line[]) => undefined)[]) =>
  (lines: Line[]): undefined => {
    for (const change of changes) change(lines)
  }

const CASES: [string, (lines: Line[]) => Line[] | undefined][] = [
  ['format version a string', set(0, 'agentTape', '2')],
  ['format version not an integer', set(0, 'agentTape', 1.5)],
  ['format version from the future', set(0, 'agentTape', 3)],
  ['format version 0', set(0, 'agentTape', 0)],
  ['another key scheme', set(0, 'keyScheme', 9)],
  ['no test id', drop(0, 'test')],
  ['no recording time', set(0, 'recordedAt', 12)],
  ['source not an object', set(0, 'source', ['node'])],
  ['command source without argv', set(0, 'source', { kind: 'command', cwd: '.' })],
  ['command source with argv not strings', set(0, 'source', { kind: 'command', argv: [1], cwd: '.' })],
  ['command source without cwd', set(0, 'source', { kind: 'command', argv: ['node'] })],
  ['capture source without run id', set(0, 'source', { kind: 'capture', name: 'x' })],
  ['source of an unknown kind', set(0, 'source', { kind: 'cron' })],
  ['ignore not a list', set(0, 'ignore', 'body.id')],
  ['ignore not paths', set(0, 'ignore', ['body.id', 3])],
  ['a second header', (lines) => [lines[0]!, lines[1]!, lines[0]!]],
  ['the header after a decision', (lines) => [lines[1]!, lines[0]!]],
  ['seq out of order', set(2, 'seq', 3)],
  ['seq missing', drop(2, 'seq')],
  ['key malformed', set(2, 'key', 'tool:xyz')],
  ['key missing', drop(2, 'key')],
  ['kind not the key', set(2, 'kind', 'llm')],
  ['kind missing', drop(2, 'kind')],
  ['step negative', set(2, 'step', -1)],
  ['step not an integer', set(2, 'step', 1.5)],
  ['lane not a string', set(2, 'lane', 7)],
  ['ms negative', set(2, 'ms', -1)],
  ['ms missing', drop(2, 'ms')],
  ['at negative', set(2, 'at', -3)],
  ['at not an integer', set(2, 'at', 12.5)],
  ['at a string', set(2, 'at', '2026-11-30T10:00:00.130Z')],
  ['wire not hex', set(1, 'wire', 'not-a-fingerprint')],
  ['wire too short', set(1, 'wire', 'abc')],
  ['err not an object', set(2, 'err', 'boom')],
  ['err without message', set(2, 'err', { name: 'Error' })],
  ['err and out', set(2, 'out', 1)],
  ['in and patch', set(4, 'in', {})],
  ['in and base', both(drop(2, 'err'), set(2, 'base', 1))],
  ['no input', drop(2, 'in')],
  ['patch without base', drop(4, 'base')],
  ['base without patch', drop(4, 'patch')],
  ['base not a seq', set(4, 'base', 'one')],
  ['base after the decision', set(4, 'base', 4)],
  ['base of another lane', set(4, 'base', 2)],
  ['patch not a list', set(4, 'patch', { op: 'add' })],
  ['patch op unknown', set(4, 'patch', [{ op: 'move', from: '/a', path: '/b' }])],
  ['patch that does not apply', set(4, 'patch', [{ op: 'replace', path: '/body/nothing/here', value: 1 }])],
  ['a patch in format 1', set(0, 'agentTape', 1)],
  ['a base alone in format 1', both(set(0, 'agentTape', 1), drop(4, 'patch'))],
  ['a decision line that is not an object', (lines) => [lines[0]!, [1, 2] as unknown as Line]],
]

it('reports every damaged field as pinned', async () => {
  const report = CASES.map(([name, change]) => {
    try {
      const read = parseCassette(damaged(change), 'cassettes/damaged.jsonl')
      return `${name}\n  read: ${read.decisions.length} decisions\n`
    } catch (error) {
      if (!isAgentTapeError(error)) throw error
      return `${name}\n  ${error.code} ${error.message}\n`
    }
  })
  await expect(report.join('')).toMatchFileSnapshot('__goldens__/validation.txt')
})

it('reads the cassette with every field whole', () => {
  expect(
    parseCassette(
      damaged(() => undefined),
      'every-field.jsonl',
    ).decisions,
  ).toHaveLength(LINES.length - 1)
})
