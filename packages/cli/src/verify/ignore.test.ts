import { describe, expect, it } from 'vitest'
import { createIgnore } from './ignore.js'

describe('createIgnore', () => {
  it.each([
    ['fixtures', 'test/fixtures/__cassettes__/a.test.ts/x.jsonl', true],
    ['fixtures', 'fixtures/x.jsonl', true],
    ['fixtures', 'test/my-fixtures/x.jsonl', false],
    ['test/**/damaged', 'test/cli/damaged/bad.jsonl', true],
    ['test/**/damaged', 'test/damaged/bad.jsonl', true],
    ['test/**/damaged', 'examples/test/damaged/bad.jsonl', false],
    ['examples/*/test/__cassettes__', 'examples/a/test/__cassettes__/t.ts/x.jsonl', true],
    ['examples/*/test/__cassettes__', 'examples/a/b/test/__cassettes__/t.ts/x.jsonl', false],
    ['*.old.jsonl', 'test/__cassettes__/a.test.ts/x.old.jsonl', true],
    ['./packages/', 'packages/cli/x.jsonl', true],
    ['x?.jsonl', 'a/x1.jsonl', true],
    ['x?.jsonl', 'a/x12.jsonl', false],
    ['a.b', 'aXb/x.jsonl', false],
  ])('%s on %s: %s', (pattern, path, ignored) => {
    expect(createIgnore([pattern])(path)).toBe(ignored)
  })

  it('ignores nothing without patterns', () => {
    expect(createIgnore([])('anything.jsonl')).toBe(false)
  })
})
