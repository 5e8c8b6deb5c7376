import { readdirSync, readFileSync, readlinkSync } from 'node:fs'
import { basename } from 'node:path'

/** A script's name as its interpreter is given it: kept in a report, unlike other arguments. */
const SCRIPT = /^[\w./-]+\.(py|rb|pl|php|sh|bash|js|mjs|cjs|ts|lua|r|R|jl)$/

/**
 * The program on the other end of a loopback connection to the gateway, as a report names it
 * (`python3 agent.py`, `curl`): found on Linux through the socket's inode in `/proc`, else
 * `undefined`. Its arguments are left out, as they may hold secrets, except a script's name.
 */
export function clientProgram(remotePort: number | undefined): string | undefined {
  if (process.platform !== 'linux' || remotePort === undefined) return undefined
  try {
    const inode = socketInode(remotePort)
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

/** The inode of the loopback socket whose own port is `port` (the client's end). */
function socketInode(port: number): string | undefined {
  const hex = port.toString(16).toUpperCase().padStart(4, '0')
  for (const table of ['/proc/net/tcp', '/proc/net/tcp6']) {
    let text: string
    try {
      text = readFileSync(table, 'utf8')
    } catch {
      continue
    }
    for (const line of text.split('\n').slice(1)) {
      const fields = line.trim().split(/\s+/)
      if (fields[1]?.endsWith(`:${hex}`)) return fields[9]
    }
  }
  return undefined
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
