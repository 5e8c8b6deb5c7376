import { describe, expect, it } from 'vitest'
import { formatSseEvent, jsonEvent } from './sse.js'

describe('formatSseEvent', () => {
  it('writes a data-only event when there is no event name', () => {
    expect(formatSseEvent({ data: '[DONE]' })).toBe('data: [DONE]\n\n')
  })

  it('writes the event name before the data and ends with a blank line', () => {
    expect(formatSseEvent({ event: 'message_stop', data: '{"type":"message_stop"}' })).toBe(
      'event: message_stop\ndata: {"type":"message_stop"}\n\n',
    )
  })

  it('splits multi-line data into several data: fields', () => {
    expect(formatSseEvent({ data: 'a\nb' })).toBe('data: a\ndata: b\n\n')
  })
})

describe('jsonEvent', () => {
  it('serializes compact JSON, which keeps newlines inside strings escaped on one line', () => {
    const event = jsonEvent('x', { text: 'line1\nline2' })
    expect(event).toEqual({ event: 'x', data: '{"text":"line1\\nline2"}' })
    expect(formatSseEvent(event).split('\n')).toHaveLength(4)
  })
})
