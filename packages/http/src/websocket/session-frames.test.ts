import { describe, expect, it } from 'vitest'
import { geminiLiveCodec } from '../codecs/gemini-live.js'
import { clientInput, recordedMessages } from './session-frames.js'

describe('recordedMessages', () => {
  it('reads JSON from text frames and from binary frames that hold it, and nothing else', () => {
    const json = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64')
    const out = {
      frames: [
        { at: 0, text: '{"setupComplete":{}}' },
        { at: 1, binary: json({ toolCall: { functionCalls: [{ id: 'f', name: 'x', args: {} }] } }) },
        { at: 2, binary: Buffer.from([0xff, 0x00]).toString('base64') },
        { at: 3, text: 'not json' },
        { at: 4, close: { code: 1000, reason: '' } },
      ],
    }
    expect(recordedMessages(out)).toEqual([
      { setupComplete: {} },
      { toolCall: { functionCalls: [{ id: 'f', name: 'x', args: {} }] } },
    ])
    expect(geminiLiveCodec.readMessages(recordedMessages(out)).toolCalls).toEqual([
      { id: 'f', name: 'x', arguments: '{}' },
    ])
  })
})

describe('clientInput', () => {
  it('keys a binary frame by its digest, a text frame that is not JSON whole', () => {
    expect(clientInput(geminiLiveCodec, Buffer.from([1, 2, 3]), true)).toEqual({
      api: 'gemini-live',
      frame: 'binary',
      data: { sha256: '039058c6f2c0cb492c533b0a4d14ef77', bytes: 3 },
    })
    expect(clientInput(geminiLiveCodec, Buffer.from('hello'), false)).toEqual({
      api: 'gemini-live',
      frame: 'text',
      text: 'hello',
    })
  })
})
