import { readdirSync, readFileSync, readlinkSync } from 'node:fs'
import { basename } from 'node:path'

/** A script's name as its interpreter is given it: kept in a report, unlike other arguments. */
const SCRIPT = /^[\w./-]+\.(py|rb|pl|php|sh|bash|js|mjs|cjs|ts|lua|r|R|jl)$/

/**
 * The program on the other end of a loopback connection to the gateway, as a report names it
 * (`python3 agent.py`, `curl`): found on Linux through the socket's inode in `/proc`, else
 * `undefined`. Its arguments are left out, as they may hold secrets, except a script's name.
 * `socket` is the gateway's end: its local port is the client's remote one and the reverse.
 */
export function clientProgram(socket: { remotePort?: number; localPort?: number }): string | undefined {
  const { remotePort: clientPort, localPort: gatewayPort } = socket
  if (process.platform !== 'linux' || clientPort === undefined || gatewayPort === undefined) return undefined
  try {
    const inode = socketInode(clientPort, gatewayPort)
    if (!inode) return undefined
    const pid = ownerOf(`socket:[${inode}]`)
    if (!pid) return undefined
    const argv = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').filter(Boolean)
    if (argv.length === 0) return undefined
    const program = basename(argv[0]!)
    const script = argv.slice(1).find((arg) => !arg.startsWith('-'))
    return script && SCRIPT.test(script) ? `${program} ${script}` : program
  } catch {
    return undefined
  }
}

/** The inode of the client's end of its connection to the gateway, from the kernel's tables. */
function socketInode(clientPort: number, gatewayPort: number): string | undefined {
  for (const table of ['/proc/net/tcp', '/proc/net/tcp6']) {
    let text: string
    try {
      text = readFileSync(table, 'utf8')
    } catch {
      continue
    }
    const inode = connectionInode(text, clientPort, gatewayPort)
    if (inode) return inode
  }
  return undefined
}

/** A socket's state in `/proc/net/tcp`: `01` is an open connection. */
const ESTABLISHED = '01'

/**
 * The inode of the open connection from local port `clientPort` to remote port `gatewayPort` in
 * a `/proc/net/tcp{,6}` table, else `undefined`. A port alone names no socket: Linux gives one
 * local port to several connections when their far ends differ (another process's, or the
 * gateway's own to an upstream), and a closed connection lingers in `TIME_WAIT` with inode 0.
 */
export function connectionInode(table: string, clientPort: number, gatewayPort: number): string | undefined {
  const local = `:${hexPort(clientPort)}`
  const remote = `:${hexPort(gatewayPort)}`
  for (const line of table.split('\n').slice(1)) {
    const [, localAddress, remoteAddress, state, , , , , , inode] = line.trim().split(/\s+/)
    if (!localAddress?.endsWith(local) || !remoteAddress?.endsWith(remote)) continue
    if (state === ESTABLISHED && inode && inode !== '0') return inode
  }
  return undefined
}

function hexPort(port: number): string {
  return port.toString(16).toUpperCase().padStart(4, '0')
}

/** The process that holds the file descriptor whose link is `link`, other than this one. */
function ownerOf(link: string): string | undefined {
  for (const pid of readdirSync('/proc')) {
    if (!/^\d+$/.test(pid) || Number(pid) === process.pid) continue
    let fds: string[]
    try {
      fds = readdirSync(`/proc/${pid}/fd`)
    } catch {
      continue
    }
    for (const fd of fds) {
      try {
        if (readlinkSync(`/proc/${pid}/fd/${fd}`) === link) return pid
      } catch {}
    }
  }
  return undefined
}
