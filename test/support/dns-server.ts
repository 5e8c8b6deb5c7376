import { createSocket } from 'node:dgram'
import type { AddressInfo } from 'node:net'

export interface CountingDnsServer {
  /** `127.0.0.1:<port>`, for `resolver.setServers()`. */
  server: string
  /** Queries received so far: 0 proves nothing reached this server. */
  readonly queries: number
  close(): Promise<void>
}

/**
 * A DNS server on loopback (UDP) that answers every A query with 127.0.0.1 and counts queries,
 * so a test can tell a query refused before it left from one that was sent.
 */
export async function startCountingDnsServer(): Promise<CountingDnsServer> {
  let queries = 0
  const socket = createSocket('udp4')
  socket.on('message', (query, peer) => {
    queries += 1
    // Header: the query's id, "response, recursion available", one question, one answer.
    const header = Buffer.from([query[0]!, query[1]!, 0x81, 0x80, 0, 1, 0, 1, 0, 0, 0, 0])
    let end = 12
    while (query[end]! !== 0) end += query[end]! + 1
    // The name's last label, then its type and class; anything after it (EDNS) is left out.
    const question = query.subarray(12, end + 5)
    // A pointer to the name at offset 12, type A, class IN, TTL 60, 4 bytes: 127.0.0.1.
    const answer = Buffer.from([0xc0, 0x0c, 0, 1, 0, 1, 0, 0, 0, 60, 0, 4, 127, 0, 0, 1])
    socket.send(Buffer.concat([header, question, answer]), peer.port, peer.address)
  })
  await new Promise<void>((resolve) => socket.bind(0, '127.0.0.1', resolve))
  const { port } = socket.address() as AddressInfo
  return {
    server: `127.0.0.1:${port}`,
    get queries() {
      return queries
    },
    close: () => new Promise<void>((resolve) => socket.close(() => resolve())),
  }
}

/** A UDP listener on loopback that counts the datagrams it receives. */
export async function startCountingUdpServer(): Promise<{
  port: number
  readonly datagrams: number
  close(): Promise<void>
}> {
  let datagrams = 0
  const socket = createSocket('udp4')
  socket.on('message', () => {
    datagrams += 1
  })
  await new Promise<void>((resolve) => socket.bind(0, '127.0.0.1', resolve))
  const { port } = socket.address() as AddressInfo
  return {
    port,
    get datagrams() {
      return datagrams
    },
    close: () => new Promise<void>((resolve) => socket.close(() => resolve())),
  }
}
