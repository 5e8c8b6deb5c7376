import { describe, expect, it } from 'vitest'
import { asJsonData, fromJsonData, toJsonData } from './json-walk.js'

const TEXT = 'GIF89a, then some text'
const bytes = () => Buffer.from(TEXT)
const base64 = Buffer.from(TEXT).toString('base64')

/** Every kind of value that holds bytes, made over the same 24 bytes. */
function byteHolders(): [string, () => object][] {
  const source = new Uint8Array(Buffer.from('0123456789abcdefghijklmn'))
  const copy = () => source.slice().buffer
  return [
    ['Buffer', () => Buffer.from(source)],
    ['Uint8Array', () => new Uint8Array(copy())],
    ['Uint8ClampedArray', () => new Uint8ClampedArray(copy())],
    ['Int8Array', () => new Int8Array(copy())],
    ['Int16Array', () => new Int16Array(copy())],
    ['Uint16Array', () => new Uint16Array(copy())],
    ['Int32Array', () => new Int32Array(copy())],
    ['Uint32Array', () => new Uint32Array(copy())],
    ['Float32Array', () => new Float32Array(copy())],
    ['Float64Array', () => new Float64Array(copy())],
    ['BigInt64Array', () => new BigInt64Array(copy())],
    ['BigUint64Array', () => new BigUint64Array(copy())],
    ['DataView', () => new DataView(copy())],
    ['ArrayBuffer', () => copy()],
    [
      'SharedArrayBuffer',
      () => {
        const shared = new SharedArrayBuffer(source.length)
        new Uint8Array(shared).set(source)
        return shared
      },
    ],
  ]
}

function bytesIn(value: object): Buffer {
  if (ArrayBuffer.isView(value)) return Buffer.from(value.buffer, value.byteOffset, value.byteLength)
  return Buffer.from(value as ArrayBuffer)
}

describe('toJsonData', () => {
  it('writes a Buffer as its base64 and its kind, not as a list of numbers', () => {
    expect(toJsonData(bytes())).toEqual({ $bytes: base64, type: 'Buffer' })
    expect(JSON.stringify(toJsonData({ file: bytes() }))).toBe(
      `{"file":{"$bytes":"${base64}","type":"Buffer"}}`,
    )
  })

  it.each(byteHolders())('writes a %s as base64 and reads it back as one, byte-equal', (type, make) => {
    const data = toJsonData({ list: [1, make()], nested: { deep: [make()] } }) as {
      list: [number, unknown]
      nested: { deep: unknown[] }
    }
    const encoded = { $bytes: Buffer.from('0123456789abcdefghijklmn').toString('base64'), type }
    expect(data).toEqual({ list: [1, encoded], nested: { deep: [encoded] } })
    const back = fromJsonData(JSON.parse(JSON.stringify(data))) as typeof data
    const value = back.list[1] as object
    expect(Object.prototype.toString.call(value)).toBe(Object.prototype.toString.call(make()))
    expect(Buffer.isBuffer(value)).toBe(type === 'Buffer')
    expect(bytesIn(value).equals(bytesIn(make()))).toBe(true)
    expect(bytesIn(back.nested.deep[0] as object).equals(bytesIn(make()))).toBe(true)
  })

  it('writes the bytes a view sees, not the whole buffer behind it', () => {
    const pooled = Buffer.from('short') // a slice of Node's shared pool
    expect(toJsonData(pooled)).toEqual({ $bytes: Buffer.from('short').toString('base64'), type: 'Buffer' })
    const view = new Uint8Array(Buffer.from('..middle..')).subarray(2, 8)
    expect(toJsonData(view)).toEqual({ $bytes: Buffer.from('middle').toString('base64'), type: 'Uint8Array' })
    expect(fromJsonData(toJsonData(new Uint8Array(0)))).toEqual(new Uint8Array(0))
  })

  it('encodes a Buffer that a toJSON method returns, and one inside a class instance', () => {
    class Upload {
      name = 'a.gif'
      body = bytes()
    }
    expect(toJsonData({ a: { toJSON: () => bytes() }, b: new Upload() })).toEqual({
      a: { $bytes: base64, type: 'Buffer' },
      b: { name: 'a.gif', body: { $bytes: base64, type: 'Buffer' } },
    })
  })

  it('keeps what JSON.stringify does to other values', () => {
    expect(toJsonData({ at: new Date(0), n: Number.NaN, gone: undefined, list: [undefined] })).toEqual({
      at: '1970-01-01T00:00:00.000Z',
      n: null,
      list: [null],
    })
    // A plain object shaped like a Buffer's JSON is data, not bytes.
    const lookalike = { type: 'Buffer', data: [1, 2] }
    expect(fromJsonData(toJsonData(lookalike))).toEqual(lookalike)
    expect(toJsonData(undefined)).toBeUndefined()
    expect(toJsonData(() => 1)).toBeUndefined()
  })

  it('escapes a member named like the marker, so that replay gives the data back as it was', () => {
    const data = {
      user: { $bytes: base64, type: 'Buffer' },
      more: { $$bytes: 'x', $$$bytes: 1, a$bytes: true },
      with: bytes(),
    }
    for (const value of [data, { ...data, at: new Date(0) }]) {
      const json = toJsonData(value) as Record<string, unknown>
      expect(json.user).toEqual({ $$bytes: base64, type: 'Buffer' })
      expect(json.more).toEqual({ $$$bytes: 'x', $$$$bytes: 1, a$bytes: true })
      const back = fromJsonData(JSON.parse(JSON.stringify(json))) as typeof data
      expect(back.user).toEqual(data.user)
      expect(Object.keys(back.more)).toEqual(['$$bytes', '$$$bytes', 'a$bytes'])
      expect(Buffer.isBuffer(back.with)).toBe(true)
    }
    expect(asJsonData({ plain: { $bytes: 'x' } })).toEqual({ plain: { $$bytes: 'x' } })
  })
})

describe('asJsonData', () => {
  it('shares plain data, and encodes bytes in a copy', () => {
    const plain = { a: [1, { b: 'c' }] }
    expect(asJsonData(plain)).toBe(plain)
    expect(asJsonData({ a: [bytes()] })).toEqual({ a: [{ $bytes: base64, type: 'Buffer' }] })
  })
})

describe('fromJsonData', () => {
  it('gives data without bytes back as it is, without a copy', () => {
    const data = { a: [1, { b: 'c' }], c: null }
    expect(fromJsonData(data)).toBe(data)
    expect(fromJsonData('text')).toBe('text')
  })

  it('gives back a marker it cannot read (edited by hand) as the object it is', () => {
    for (const marker of [
      { $bytes: 'not base64!', type: 'Buffer' },
      { $bytes: 'AA==', type: 'Uint16Array' },
      { $bytes: 'AAAA', type: 'Window' },
      { $bytes: 'AAAA', type: 'Buffer', extra: 1 },
      { $bytes: 42, type: 'Buffer' },
    ])
      expect(fromJsonData(marker)).toEqual(marker)
  })

  it('makes a new value at each read, so a caller that changes it does not change the recording', () => {
    const out = toJsonData(bytes())
    const first = fromJsonData(out) as Buffer
    first.fill(0)
    expect((fromJsonData(out) as Buffer).toString()).toBe(TEXT)
  })
})

describe('toJsonData of bytes with a toJSON of their own', () => {
  it('calls it, as JSON.stringify does, at the top and inside', () => {
    class Tagged extends Uint8Array {
      toJSON() {
        return 'tagged'
      }
    }
    expect(toJsonData(new Tagged(4))).toBe('tagged')
    expect(toJsonData({ a: new Tagged(4) })).toEqual({ a: 'tagged' })
  })
})

describe('toJsonData of plain data', () => {
  it('makes the copy JSON.parse(JSON.stringify(value)) makes, sharing nothing with the value', () => {
    const values: unknown[] = [
      { a: [1, 'two', { three: null }], b: true, c: 1.5e-7, d: 'ü\ud800' },
      JSON.parse('{"__proto__":{"polluted":true},"2":"x","1":"y"}'),
      Object.assign(Object.create(null), { bare: 1 }),
      [[], {}, ''],
      { zero: -0, nan: Number.NaN, holes: new Array(2).fill(1, 1) },
    ]
    for (const value of values) {
      const copy = toJsonData(value) as Record<string, unknown>
      expect(copy).toStrictEqual(JSON.parse(JSON.stringify(value)))
      expect(JSON.stringify(copy)).toBe(JSON.stringify(value))
    }
    const polluted = toJsonData(values[1]) as Record<string, unknown>
    expect(Object.getPrototypeOf(polluted)).toBe(Object.prototype)
    expect(Object.hasOwn(polluted, '__proto__')).toBe(true)
    const source = { list: [{ n: 1 }] }
    const copy = toJsonData(source) as typeof source
    source.list[0]!.n = 2
    source.list.push({ n: 3 })
    expect(copy).toEqual({ list: [{ n: 1 }] })
  })

  it('says what JSON.stringify says of a cycle', () => {
    const cycle: Record<string, unknown> = { a: 1 }
    cycle.self = cycle
    expect(() => toJsonData(cycle)).toThrow(/circular/)
    expect(() => toJsonData({ big: 1n })).toThrow(TypeError)
  })
})
