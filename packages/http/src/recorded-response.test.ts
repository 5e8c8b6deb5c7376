import { expect, it } from 'vitest'
import { isRecordedResponse } from './recorded-response.js'

it('takes anything with a numeric status and a headers object for a recorded response', () => {
  expect(isRecordedResponse({ status: 200, headers: {} })).toBe(true)
  expect(isRecordedResponse({ status: 0, headers: {}, body: { text: '' } })).toBe(true)
  expect(isRecordedResponse({ status: 500, headers: { 'content-type': 'text/plain' }, headersAt: 3 })).toBe(
    true,
  )
})

it('refuses what a damaged or foreign decision holds in its place', () => {
  for (const value of [
    undefined,
    null,
    'ok',
    200,
    [],
    {},
    { status: '200', headers: {} },
    { status: 200 },
    { status: 200, headers: null },
    { status: 200, headers: 'content-type: text/plain' },
    { headers: {} },
    // A tool's result, as stored by a tool decision.
    { city: 'Paris', tempC: 18 },
  ])
    expect(isRecordedResponse(value), JSON.stringify(value)).toBe(false)
})
