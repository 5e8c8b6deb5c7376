import { Readable } from 'node:stream'
import { expect, it } from 'vitest'
import { dispatchBody, dispatchHeaders, dispatchUrl } from './dispatch-request.js'

it('reads headers in every form undici accepts, without the ones the connection sets', () => {
  const expected = { accept: 'application/json', 'x-tag': 'a, b' }
  const read = (raw: unknown) => Object.fromEntries(dispatchHeaders(raw))
  expect(read({ Accept: 'application/json', 'x-tag': ['a', 'b'], host: 'x', 'content-length': '3' })).toEqual(
    expected,
  )
  expect(
    read(['accept', 'application/json', 'x-tag', 'a', 'x-tag', 'b', 'connection', 'keep-alive']),
  ).toEqual(expected)
  expect(
    read([
      ['accept', 'application/json'],
      ['x-tag', 'a'],
      ['x-tag', 'b'],
    ]),
  ).toEqual(expected)
  expect(
    read(
      new Map([
        ['accept', 'application/json'],
        ['x-tag', 'a, b'],
      ]),
    ),
  ).toEqual(expected)
  expect(read(undefined)).toEqual({})
})

it('reads every body type undici accepts as bytes', async () => {
  const text = async (body: unknown) => new TextDecoder().decode(await dispatchBody(body, new Headers()))
  expect(await text('hello')).toBe('hello')
  expect(await text(Buffer.from('hello'))).toBe('hello')
  expect(await text(new TextEncoder().encode('hello').buffer)).toBe('hello')
  expect(await text(new Blob(['hel', 'lo']))).toBe('hello')
  expect(await text(Readable.from([Buffer.from('hel'), Buffer.from('lo')]))).toBe('hello')
  expect(
    await text(
      (async function* () {
        yield new TextEncoder().encode('hel')
        yield 'lo'
      })(),
    ),
  ).toBe('hello')
  expect(await dispatchBody(null, new Headers())).toBeUndefined()
  const headers = new Headers()
  const form = new FormData()
  form.set('a', '1')
  expect(new TextDecoder().decode(await dispatchBody(form, headers))).toContain('name="a"')
  expect(headers.get('content-type')).toMatch(/^multipart\/form-data; boundary=/)
})

it('takes no URL for upgrades and CONNECT, which are not requests to tape', () => {
  expect(dispatchUrl({ origin: 'http://h:1', path: '/a?b=1', method: 'GET' })?.href).toBe('http://h:1/a?b=1')
  expect(dispatchUrl({ origin: new URL('https://h'), path: '/' })?.href).toBe('https://h/')
  expect(dispatchUrl({ origin: 'http://h:1', path: '/', upgrade: 'websocket' })).toBeUndefined()
  expect(dispatchUrl({ origin: 'http://h:1', method: 'CONNECT' })).toBeUndefined()
  expect(dispatchUrl({ path: '/' })).toBeUndefined()
})
