import { describe, expect, it } from 'vitest'
import { assertTapeName, cassetteFolderFor, cassettePathFor, describeFolder } from './cassette-path.js'

describe('cassettePathFor', () => {
  it('puts the cassette in a folder named after the test file, beside it', () => {
    expect(cassettePathFor({ testFile: 'test/agent.test.ts', name: 'issue-412' })).toBe(
      'test/__cassettes__/agent.test.ts/issue-412.jsonl',
    )
    expect(cassettePathFor({ testFile: 'agent.test.ts', name: 'a b' })).toBe(
      '__cassettes__/agent.test.ts/a b.jsonl',
    )
  })

  it('gives each describe block around the tape a folder, as a snapshot is keyed by its describe path', () => {
    expect(cassettePathFor({ testFile: 'test/agent.test.ts', describes: ['billing'], name: 'refund' })).toBe(
      'test/__cassettes__/agent.test.ts/billing/refund.jsonl',
    )
    expect(
      cassettePathFor({
        testFile: 'test/agent.test.ts',
        describes: ['checkout', 'happy path'],
        name: 'happy',
      }),
    ).toBe('test/__cassettes__/agent.test.ts/checkout/happy path/happy.jsonl')
    expect(cassettePathFor({ testFile: 'test/agent.test.ts', describes: [], name: 'happy' })).toBe(
      'test/__cassettes__/agent.test.ts/happy.jsonl',
    )
  })

  it('makes a describe name fit a folder name on every platform, rather than refuse it', () => {
    const cases: [string, string][] = [
      ['billing', 'billing'],
      ['GET /api/users', 'GET -api-users'],
      ['a > b', 'a - b'],
      ['works (slow): "quoted"?', 'works -slow- -quoted-'],
      ['../escape', '-escape'],
      ['..', '_'],
      ['wait...', 'wait'],
      ['  padded  ', 'padded'],
      ['', '_'],
      ['café ü', 'café ü'],
      ['CON', '_CON'],
      ['aux.refund', '_aux.refund'],
      ['tab\there', 'tab-here'],
      ['x'.repeat(130), 'x'.repeat(120)],
    ]
    for (const [name, folder] of cases) expect(describeFolder(name), name).toBe(folder)
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
    for (const good of ['issue-412', 'refund v2.1', 'café', '@edge_case-1', 'console', 'auxiliary', 'com10'])
      assertTapeName(good, 'f')
  })

  it('rejects the device names Windows reserves, in any case and with any extension', () => {
    for (const bad of ['CON', 'con', 'aux', 'Nul', 'com1', 'LPT9', 'prn.v2', 'aux.refund']) {
      expect(() => assertTapeName(bad, 'test/a.test.ts')).toThrow(/Windows reserves CON, PRN, AUX, NUL/)
    }
    expect(() => assertTapeName('aux', 'test/a.test.ts')).toThrowError(
      '[agent-tape] Invalid tape name "aux" in test/a.test.ts: the name becomes the cassette file name, and Windows reserves CON, PRN, AUX, NUL, COM1 to COM9 and LPT1 to LPT9 (in any case) as device names, so the cassette could not be checked out there. Name the tape after the scenario, e.g. it.tape("aux-case", ...).',
    )
  })
})
