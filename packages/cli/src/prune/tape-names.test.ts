import { describe, expect, it } from 'vitest'
import { readTapeNames } from './tape-names.js'

describe('readTapeNames', () => {
  it('reads string-literal names of it.tape and test.tape, with modifiers and conditions', () => {
    const source = `
      import { it, test } from '@agent-tape/vitest'
      it.tape('issue-412', async ({ tape }) => { await tape.tools({}).x() })
      test.tape("refund twice", async () => {})
      it.tape.skip(\`no-template\`, async () => {})
      it.tape.concurrent.only('parallel', async () => {})
      it.tape.skipIf(process.platform === 'win32')('posix only', async () => {})
      it.tape(
        // a comment between the parenthesis and the name
        'multi-line',
        async () => {},
      )
    `
    const names = ['issue-412', 'refund twice', 'no-template', 'parallel', 'posix only', 'multi-line']
    expect(readTapeNames(source)).toEqual({ names: new Set(names), tapes: names.map((n) => [n]) })
  })

  it('ignores the tape fixture methods and unrelated .tape properties', () => {
    const source = `
      it.tape('a', async (context) => {
        const tools = context.tape.tools({ search })
        expect(context.tape).toReplayCleanly()
        context.tape.env(['HOME'])
      })
    `
    expect(readTapeNames(source)).toEqual({ names: new Set(['a']), tapes: [['a']] })
  })

  it('cannot tell when a name is an expression', () => {
    expect(readTapeNames("it.tape('a', f)\nfor (const n of names) it.tape(n, f)").dynamic).toEqual({
      line: 2,
      reason: 'a tape is named by an expression, not a string literal',
    })
    // biome-ignore lint/suspicious/noTemplateCurlyInString: the test file's source text
    expect(readTapeNames('it.tape(`case-${n}`, f)').dynamic?.reason).toBe(
      'a tape is named by an expression, not a string literal',
    )
    expect(readTapeNames("it.tape('case-' + n, f)").dynamic).toEqual({
      line: 1,
      reason: 'a tape is named by an expression, not a string literal',
    })
  })

  it('cannot tell with .each and .for tables, or when it.tape is passed around', () => {
    expect(readTapeNames("it.tape.each([1, 2])('case %i', f)").dynamic?.reason).toBe(
      'a .each table names its tapes',
    )
    expect(readTapeNames("test.tape.for(['a'])('%s', f)").dynamic?.reason).toBe(
      'a .for table names its tapes',
    )
    expect(readTapeNames('const tapeIt = it.tape\ntapeIt("x", f)').dynamic?.reason).toBe(
      'it.tape is used as a value',
    )
  })

  it('reads the describe blocks around each tape, whatever parentheses their bodies hold', () => {
    const source = `
      import { describe, expect, it } from 'vitest'
      it.tape('top', async () => {})
      describe('checkout', () => {
        const open = '(' // a parenthesis in a string
        it.tape('pays', async ({ tape }) => {
          expect(await pay()).toMatch(/refund \\(full/)
          expect(\`a \${call(')')} b\`).toBe(x)
        })
        describe.skip("refunds", () => {
          it.tape.concurrent('twice', async () => {})
        })
        /* describe('commented', () => { it.tape('no', f) }) */
      })
      describe.skipIf(process.env.CI)('GET /users', () => {
        it.tape('lists', async () => {})
      })
      it.tape('after', async () => {})
    `
    expect(readTapeNames(source).tapes).toEqual([
      ['top'],
      ['checkout', 'pays'],
      ['checkout', 'refunds', 'twice'],
      ['GET /users', 'lists'],
      ['after'],
    ])
  })

  it('cannot tell when a describe block around a tape is named by an expression or a table', () => {
    expect(readTapeNames("describe(name, () => {\n  it.tape('a', f)\n})").dynamic).toEqual({
      line: 1,
      reason: 'a describe block is named by an expression',
    })
    expect(readTapeNames("describe.each([1])('%i', () => {\n  it.tape('a', f)\n})").dynamic?.reason).toBe(
      'a describe.each table names its blocks',
    )
    // A dynamic block with no tape in it does not matter.
    expect(readTapeNames("describe(name, () => {})\nit.tape('a', f)")).toEqual({
      names: new Set(['a']),
      tapes: [['a']],
    })
    // An unclosed block cannot be measured: nothing is judged.
    expect(readTapeNames("describe('x', () => {\n  it.tape('a', f)\n").dynamic?.reason).toBe(
      'the extent of a describe block cannot be read',
    )
  })
})
