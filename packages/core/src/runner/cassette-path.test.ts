import { describe, expect, it } from 'vitest'
import { assertTapeName, cassetteFolderFor, cassettePathFor } from './cassette-path.js'

describe('cassettePathFor', () => {
  it('puts the cassette in a folder named after the test file, beside it', () => {
    expect(cassettePathFor({ testFile: 'test/agent.test.ts', name: 'issue-412' })).toBe(
      'test/__cassettes__/agent.test.ts/issue-412.jsonl',
    )
    expect(cassettePathFor({ testFile: 'agent.test.ts', name: 'a b' })).toBe(
      '__cassettes__/agent.test.ts/a b.jsonl',
    )
  })

  it('gives the same path for Windows separators and honours a custom folder', () => {
    expect(
      cassettePathFor({ testFile: 'test\\unit\\agent.test.ts', name: 'x', cassetteDir: 'cassettes' }),
    ).toBe('test/unit/cassettes/agent.test.ts/x.jsonl')
    expect(cassetteFolderFor('test/agent.test.ts', '../recordings')).toBe('recordings/agent.test.ts')
  })

  it('rejects names that cannot be a file name everywhere, with the whole message', () => {
    for (const bad of ['', 'a/b', '..', 'trailing.', ' lead', 'a:b', 'x'.repeat(121), 'a..b']) {
      expect(() => assertTapeName(bad, 'test/a.test.ts')).toThrow(/Invalid tape name/)
    }
    expect(() => assertTapeName('a/b', 'test/a.test.ts')).toThrowError(
      '[agent-tape] Invalid tape name "a/b" in test/a.test.ts: the name becomes the cassette file name, so it is 1 to 120 letters, digits, spaces, ".", "-", "_" or "@", starting and ending with a letter, digit, "-", "_" or "@". Name the tape after the scenario, e.g. it.tape("issue-412", ...).',
    )
    for (const good of ['issue-412', 'refund v2.1', 'café', '@edge_case-1']) assertTapeName(good, 'f')
  })
})
