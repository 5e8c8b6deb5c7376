import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import {
  applyPatch,
  computePatch,
  jsonLongerThan,
  PatchError,
  type PatchOp,
  validatePatch,
} from './json-patch.js'

/** JSON keys that pointers must escape, that objects treat specially, or that look like indexes. */
const memberName = fc.oneof(
  fc.constantFrom('~', '/', '~1', '~0/', 'a/b~c', '__proto__', '', '0', '10', 'é', '😀 emoji', '-'),
  fc.string({ maxLength: 6 }),
)
const json = fc
  .letrec((tie) => ({
    value: fc.oneof(
      { depthSize: 'small', withCrossShrink: true },
      fc.constantFrom(null, true, false, 0, -1.5, ''),
      fc.string({ maxLength: 8 }),
      fc.array(tie('value'), { maxLength: 4 }),
      fc.dictionary(memberName, tie('value'), { maxKeys: 4 }),
    ),
  }))
  .value.map((v) => JSON.parse(JSON.stringify(v)) as unknown)

function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null) {
    for (const v of Object.values(value)) deepFreeze(v)
    Object.freeze(value)
  }
  return value
}

const patchOf = (a: unknown, b: unknown) => computePatch(a, b).map((o) => o.op)

describe('computePatch and applyPatch', () => {
  it('the patch of any two values turns the first into the second, member order included, and leaves the first as it was', () => {
    fc.assert(
      fc.property(json, json, (a, b) => {
        const before = JSON.stringify(a)
        const patched = applyPatch(deepFreeze(a), patchOf(a, b))
        expect(JSON.stringify(patched)).toBe(JSON.stringify(b))
        expect(JSON.stringify(a)).toBe(before)
      }),
      { numRuns: 500 },
    )
  })

  it('a patch is never longer than replacing the value outright', () => {
    fc.assert(
      fc.property(json, json, (a, b) => {
        const patch = patchOf(a, b)
        if (patch.length === 0) return
        expect(JSON.stringify(patch).length).toBeLessThanOrEqual(
          JSON.stringify([{ op: 'replace', path: '', value: b }]).length,
        )
      }),
    )
  })

  it('writes an agent step as the messages it appended', () => {
    const history = [
      { role: 'system', content: 'You are a support agent.' },
      { role: 'user', content: 'refund INV-412' },
    ]
    const a = { model: 'gpt-4o', messages: history }
    const b = {
      model: 'gpt-4o',
      messages: [...history, { role: 'assistant', content: 'on it' }, { role: 'tool', content: '4200' }],
    }
    expect(patchOf(a, b)).toEqual([
      { op: 'add', path: '/messages/-', value: { role: 'assistant', content: 'on it' } },
      { op: 'add', path: '/messages/-', value: { role: 'tool', content: '4200' } },
    ])
  })

  it('writes a moved cache marker as a remove and an add', () => {
    const text = (t: string, cached: boolean) => ({
      type: 'text',
      text: t,
      ...(cached ? { cache_control: { type: 'ephemeral' } } : {}),
    })
    const long = 'a long tool result '.repeat(20)
    const a = { messages: [{ role: 'user', content: [text(long, true)] }] }
    const b = {
      messages: [
        { role: 'user', content: [text(long, false)] },
        { role: 'user', content: [text('next', true)] },
      ],
    }
    expect(patchOf(a, b)).toEqual([
      { op: 'remove', path: '/messages/0/content/0/cache_control' },
      { op: 'add', path: '/messages/-', value: b.messages[1] },
    ])
  })

  it('escapes ~ and / in member names, and keeps the order of the members', () => {
    const keep = 'a value long enough to be worth keeping '.repeat(3)
    const a = { 'a/b': { '~x': 1, keep }, keep }
    const b = { 'a/b': { '~x': 2, keep }, keep, added: true }
    expect(patchOf(a, b)).toEqual([
      { op: 'replace', path: '/a~1b/~0x', value: 2 },
      { op: 'add', path: '/added', value: true },
    ])
    const reordered = { keep, 'a/b': { '~x': 1, keep } }
    expect(JSON.stringify(applyPatch(a, patchOf(a, reordered)))).toBe(JSON.stringify(reordered))
  })

  it('removes from the end of a shorter array', () => {
    const long = 'x'.repeat(60)
    expect(patchOf({ list: [long, 2, long, 4, 5] }, { list: [long, 9, long] })).toEqual([
      { op: 'replace', path: '/list/1', value: 9 },
      { op: 'remove', path: '/list/4' },
      { op: 'remove', path: '/list/3' },
    ])
  })

  it('copies each touched container once, however many operations touch it, and shares the rest', () => {
    const untouched = { big: 'x'.repeat(100) }
    const base = { messages: [{ a: 1 }], other: untouched }
    const patched = applyPatch(deepFreeze(base), [
      { op: 'add', path: '/messages/-', value: { a: 2 } },
      { op: 'add', path: '/messages/-', value: { a: 3 } },
      { op: 'replace', path: '/messages/0/a', value: 0 },
    ]) as typeof base
    expect(patched).toEqual({ messages: [{ a: 0 }, { a: 2 }, { a: 3 }], other: untouched })
    expect(patched.other).toBe(untouched)
    expect(patched.messages).not.toBe(base.messages)
  })

  it('keeps "__proto__" a member, never the prototype', () => {
    const patched = applyPatch({}, [{ op: 'add', path: '/__proto__', value: { polluted: true } }]) as object
    expect(Object.keys(patched)).toEqual(['__proto__'])
    expect(Object.getPrototypeOf(patched)).toBe(Object.prototype)
    expect(({} as Record<string, unknown>).polluted).toBeUndefined()
  })

  it.each<[string, unknown, PatchOp[], string]>([
    [
      'an add to a missing parent',
      { a: {} },
      [{ op: 'add', path: '/b/c', value: 1 }],
      'patch operation 1 (add "/b/c"): "/b" is missing',
    ],
    [
      'a remove of a missing member',
      { a: 1 },
      [{ op: 'remove', path: '/b' }],
      'patch operation 1 (remove "/b"): the object has no member "b"',
    ],
    [
      'a replace of an index out of range',
      { l: [1] },
      [{ op: 'replace', path: '/l/1', value: 2 }],
      'patch operation 1 (replace "/l/1"): "1" is not an index of the array (length 1)',
    ],
    [
      'an index that is not a number',
      { l: [1] },
      [{ op: 'remove', path: '/l/01' }],
      'patch operation 1 (remove "/l/01"): "01" is not an index of the array (length 1)',
    ],
    [
      'a path through a string',
      { s: 'text' },
      [{ op: 'add', path: '/s/x', value: 1 }],
      'patch operation 1 (add "/s/x"): "/s" is not an object or an array',
    ],
    [
      'a path through an index out of range',
      { l: [] },
      [{ op: 'add', path: '/l/0/x', value: 1 }],
      'patch operation 1 (add "/l/0/x"): "/l/0" is out of the array (length 0)',
    ],
    [
      'a removal of the whole input',
      { a: 1 },
      [{ op: 'remove', path: '' }],
      'patch operation 1 (remove ""): the whole input cannot be removed',
    ],
  ])('refuses %s', (_, base, patch, message) => {
    expect(() => applyPatch(base, patch)).toThrow(new PatchError(message))
  })

  it.each<[string, unknown, string]>([
    ['not an array', { op: 'add' }, '"patch" is not an array'],
    ['an operation that is not an object', [1], 'patch operation 1 is not an object'],
    [
      'an unknown op',
      [{ op: 'move', path: '/a' }],
      'patch operation 1 has op "move", not "add", "remove" or "replace"',
    ],
    ['a path that is not a string', [{ op: 'remove', path: 3 }], 'patch operation 1 has no string "path"'],
    [
      'a path without a leading /',
      [{ op: 'remove', path: 'a' }],
      'patch operation 1: the path "a" does not start with "/"',
    ],
    [
      'a bad ~ escape',
      [{ op: 'remove', path: '/a~2' }],
      'patch operation 1: the path "/a~2" has a "~" that is not "~0" or "~1"',
    ],
    ['an add without a value', [{ op: 'add', path: '/a' }], 'patch operation 1 (add /a) has no "value"'],
    [
      'a remove with a value',
      [{ op: 'remove', path: '/a', value: 1 }],
      'patch operation 1 (remove) has an unexpected member "value"',
    ],
  ])('says what is wrong with a malformed patch: %s', (_, patch, message) => {
    expect(() => validatePatch(patch)).toThrow(new PatchError(message))
  })
})

describe('jsonLongerThan', () => {
  it('agrees with the length of JSON.stringify', () => {
    fc.assert(
      fc.property(json, fc.nat(200), (value, limit) => {
        expect(jsonLongerThan(value, limit)).toBe(JSON.stringify(value).length > limit)
      }),
      { numRuns: 500 },
    )
  })
})
