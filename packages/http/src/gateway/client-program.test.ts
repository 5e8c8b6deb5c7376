import { spawn } from 'node:child_process'
import { mkdtempSync, writeFileSync } from 'node:fs'
import { createServer, type Socket } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { expect, it } from 'vitest'
import { clientProgram, connectionInode } from './client-program.js'

const HEADER =
  '  sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode'

function row(local: string, remote: string, state: string, inode: string): string {
  return `   0: ${local} ${remote} ${state} 00000000:00000000 00:00000000 00000000  1000        0 ${inode} 1 0000000000000000 20 4 30 10 -1`
}

it('finds the client end of a connection by both its ports, past sockets that share its local port', () => {
  // Client port 0xA1B2 to the gateway on 0x9C40; the same local port is also held by a connection
  // to an upstream on 0x1F90 (Linux shares a local port across far ends), and by one in TIME_WAIT.
  const table = [
    HEADER,
    row('0100007F:9C40', '00000000:0000', '0A', '5001'),
    row('0100007F:A1B2', '0100007F:1F90', '01', '5002'),
    row('0100007F:A1B2', '0100007F:9C40', '06', '0'),
    row('0100007F:9C40', '0100007F:A1B2', '01', '5003'),
    row('0100007F:A1B2', '0100007F:9C40', '01', '5004'),
  ].join('\n')
  expect(connectionInode(table, 0xa1b2, 0x9c40)).toBe('5004')
  expect(connectionInode(table, 0xa1b2, 0x1f90)).toBe('5002')
  expect(connectionInode(table, 0x9c40, 0xa1b2)).toBe('5003')
  // Only the closed connection is left: no program to name.
  expect(
    connectionInode([HEADER, row('0100007F:A1B2', '0100007F:9C40', '06', '0')].join('\n'), 0xa1b2, 0x9c40),
  ).toBe(undefined)
  const v6 = row(
    '00000000000000000000000001000000:A1B2',
    '00000000000000000000000001000000:9C40',
    '01',
    '6001',
  )
  expect(connectionInode([HEADER, v6].join('\n'), 0xa1b2, 0x9c40)).toBe('6001')
  expect(connectionInode(HEADER, 0xa1b2, 0x9c40)).toBe(undefined)
})

it.runIf(process.platform === 'linux')(
  'names a Python client by its interpreter and script, whichever of its connections asks',
  async () => {
    const dir = mkdtempSync(join(tmpdir(), 'agent-tape-client-program-'))
    const script = join(dir, 'hold_open.py')
    writeFileSync(
      script,
      [
        'import socket, sys',
        'held = [socket.create_connection(("127.0.0.1", int(sys.argv[1]))) for _ in range(3)]',
        'sys.stdin.read()',
      ].join('\n'),
    )
    const accepted: Socket[] = []
    const server = createServer((socket) => accepted.push(socket))
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
    const port = (server.address() as { port: number }).port
    const child = spawn('python3', ['hold_open.py', String(port)], {
      cwd: dir,
      stdio: ['pipe', 'inherit', 'inherit'],
    })
    try {
      while (accepted.length < 3) await new Promise((resolve) => setTimeout(resolve, 10))
      expect(accepted.map((socket) => clientProgram(socket))).toEqual([
        'python3 hold_open.py',
        'python3 hold_open.py',
        'python3 hold_open.py',
      ])
      expect(clientProgram({ localPort: port })).toBe(undefined)
    } finally {
      child.stdin?.end()
      child.kill()
      for (const socket of accepted) socket.destroy()
      server.close()
    }
  },
)
