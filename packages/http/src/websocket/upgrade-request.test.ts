import { describe, expect, it } from 'vitest'
import { openInput, printableUrl, webSocketUpgradeOf } from './upgrade-request.js'

const UPGRADE = { Connection: 'Upgrade', Upgrade: 'websocket', 'Sec-WebSocket-Version': '13' }

describe('webSocketUpgradeOf', () => {
  it("reads the ws package's call: options with the URL's parts", () => {
    const call = webSocketUpgradeOf(
      [
        {
          protocol: 'https:',
          hostname: 'api.example.com',
          port: 443,
          path: '/v1/realtime?model=gpt-realtime',
          headers: { ...UPGRADE, Authorization: 'Bearer k', 'OpenAI-Beta': 'realtime=v1' },
        },
      ],
      true,
    )
    expect(call?.url.href).toBe('wss://api.example.com/v1/realtime?model=gpt-realtime')
    expect(call?.codec.name).toBe('openai-realtime')
    expect(call?.given).toBeUndefined()
    expect(openInput(call!)).toEqual({
      api: 'openai-realtime',
      frame: 'open',
      url: '/v1/realtime?model=gpt-realtime',
      protocols: [],
      headers: { 'openai-beta': 'realtime=v1' },
    })
  })

  it('reads a URL with options, and leaves credentials in the query and subprotocols out of the key', () => {
    const url = 'http://127.0.0.1:9/ws/svc.GenerativeService.BidiGenerateContent?key=secret-key&alt=1'
    const call = webSocketUpgradeOf(
      [url, { headers: { ...UPGRADE, 'Sec-WebSocket-Protocol': 'a, b' } }],
      false,
    )
    expect(call?.given).toBe(url)
    expect(call?.codec.name).toBe('gemini-live')
    expect(openInput(call!)).toMatchObject({
      url: '/ws/svc.GenerativeService.BidiGenerateContent?alt=1',
      protocols: ['a', 'b'],
    })
    expect(printableUrl(call!)).toBe(
      'ws://127.0.0.1:9/ws/svc.GenerativeService.BidiGenerateContent?key=***&alt=1',
    )
    const browser = webSocketUpgradeOf(
      [
        {
          host: 'h',
          path: '/v1/realtime',
          headers: { ...UPGRADE, 'sec-websocket-protocol': 'realtime, openai-insecure-api-key.sk-x' },
        },
      ],
      true,
    )
    expect(openInput(browser!).protocols).toEqual(['realtime'])
  })

  it('takes no request that is not a WebSocket upgrade', () => {
    expect(webSocketUpgradeOf([{ host: 'h', path: '/', headers: { Upgrade: 'h2c' } }], false)).toBeUndefined()
    expect(webSocketUpgradeOf(['http://h/'], false)).toBeUndefined()
    expect(webSocketUpgradeOf([{ host: 'h', path: '/x', headers: UPGRADE }], false)?.codec.name).toBe(
      'websocket',
    )
  })
})
