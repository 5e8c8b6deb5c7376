import { once } from 'node:events'
import { describe, expect, it } from 'vitest'
import type { WebSocket } from 'ws'
import { type PairedSocket, readUpgradeHead, socketPair } from './socket-pair.js'
import { acceptUpgrade, closeAs, wsModule } from './ws-module.js'

/** The opcodes of the WebSocket frames in `bytes`, a stream one end wrote (RFC 6455, section 5.2). */
function opcodes(bytes: Buffer): number[] {
  const found: number[] = []
  let at = 0
  while (at + 2 <= bytes.length) {
    const short = bytes[at + 1]! & 0x7f
    const extended = short === 126 ? 2 : short === 127 ? 8 : 0
    const length =
      extended === 2
        ? bytes.readUInt16BE(at + 2)
        : extended === 8
          ? Number(bytes.readBigUInt64BE(at + 2))
          : short
    const masked = (bytes[at + 1]! & 0x80) !== 0
    found.push(bytes[at]! & 0x0f)
    at += 2 + extended + (masked ? 4 : 0) + length
  }
  return found
}

/** What one end wrote after the handshake, read as its peer reads it. */
function written(peer: PairedSocket): () => Buffer {
  const chunks: Buffer[] = []
  peer.on('data', (chunk: Buffer) => chunks.push(chunk))
  return () => Buffer.concat(chunks)
}

/** A session of a `ws` client over a pair, served with the boundary's framing, open. */
async function openSession() {
  const [clientEnd, serverEnd] = socketPair(false)
  const { WebSocket } = wsModule()
  const client = new WebSocket('ws://model.test/session', { createConnection: () => clientEnd as never })
  const opened = once(client, 'open')
  const read = await readUpgradeHead(serverEnd)
  const server = await new Promise<WebSocket>((resolve) =>
    acceptUpgrade(serverEnd, read!.head, read!.rest, undefined, resolve),
  )
  await opened
  const ends = { client: clientEnd, server: serverEnd }
  const sockets = { client, server }
  const closed = Promise.all([
    once(clientEnd, 'close'),
    once(serverEnd, 'close'),
    once(client, 'close'),
    once(server, 'close'),
  ])
  return { ends, sockets, closed, wrote: { client: written(serverEnd), server: written(clientEnd) } }
}

const CLOSE = 0x8

describe('socketPair', () => {
  it('hands a write to the peer on a later tick, never inside it, and the end after the bytes', async () => {
    const [client, server] = socketPair(false)
    const events: string[] = []
    server.on('data', (chunk: Buffer) => events.push(`data ${chunk}`))
    server.on('end', () => events.push('end'))
    // Flowing, as a socket read by a WebSocket is.
    await new Promise((resolve) => setImmediate(resolve))
    client.write('one')
    client.end('two')
    events.push('written')
    await once(server, 'close')
    expect(events).toEqual(['written', 'data one', 'data two', 'end'])
  })

  // Whichever end closes, from outside any event of the session (a replay's miss, a recorded
  // close played, an agent that closes after awaiting an answer): one close frame each way, and
  // both sockets closed, so neither `ws` keeps its 30 s close timer.
  it.each(['server', 'client'] as const)(
    'closes both ends once when the %s closes the session',
    async (closer) => {
      const { sockets, closed, wrote } = await openSession()
      closeAs(sockets[closer], 1011, 'done')
      const [, , [clientCode], [serverCode]] = await closed
      expect([clientCode, serverCode]).toEqual([1011, 1011])
      expect(opcodes(wrote.server()).filter((op) => op === CLOSE)).toEqual([CLOSE])
      expect(opcodes(wrote.client()).filter((op) => op === CLOSE)).toEqual([CLOSE])
    },
  )

  it.each(['server', 'client'] as const)(
    'closes both ends when the %s terminates the session',
    async (closer) => {
      const { sockets, closed } = await openSession()
      sockets[closer].terminate()
      const [, , [clientCode], [serverCode]] = await closed
      expect([clientCode, serverCode]).toEqual([1006, 1006])
    },
  )
})
