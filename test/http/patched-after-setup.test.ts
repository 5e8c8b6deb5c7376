import childProcess from 'node:child_process'
import dgram from 'node:dgram'
import net from 'node:net'
import { createMemoryStore, isAgentTapeError } from '@agent-tape/core'
import { installHttpBoundary } from '@agent-tape/http'
import { useMswInterception } from '@agent-tape/http/install'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { runTaped } from '../support/tape-run.js'

// What the network guards take over is taken over at the first tape, long after the setup; an
// interceptor of the team's patches the same methods in between (msw 3 patches net.Socket#connect
// when its server listens, in a setup file that runs after the runner's). Its patch must stay in
// front, as it was when the guards were applied at the setup: it sees each call first (msw answers a
// mocked request without opening a connection), and what it lets through reaches the guard, which
// refuses it in a tape. Each way out is patched after the setup by a wrapper that records the call
// and passes it on.

/** A documentation address (TEST-NET-3): never reached, as every call is refused before it leaves. */
const FAR = '203.0.113.7'

interface Way {
  owner: Record<string, unknown>
  key: string
  /** Makes the call in a tape: settles once refused (the error), or once let through. */
  call: () => Promise<unknown>
}

const sent = (socket: dgram.Socket) => (error: Error | null) => {
  socket.close()
  return error
}

const WAYS: Record<string, Way> = {
  'net.Socket#connect (fetch, node:http, undici, raw sockets)': {
    owner: net.Socket.prototype as unknown as Record<string, unknown>,
    key: 'connect',
    call: () =>
      new Promise((resolve) => {
        const socket = net.connect({ host: FAR, port: 443 })
        socket.on('error', resolve)
        socket.on('connect', () => resolve(socket.destroy()))
      }),
  },
  'dgram.Socket#send': {
    owner: dgram.Socket.prototype as unknown as Record<string, unknown>,
    key: 'send',
    call: () =>
      new Promise((resolve) => {
        const socket = dgram.createSocket('udp4')
        socket.send('ping', 5353, FAR, (error) => resolve(sent(socket)(error)))
      }),
  },
  'dgram.Socket#connect': {
    owner: dgram.Socket.prototype as unknown as Record<string, unknown>,
    key: 'connect',
    call: () =>
      new Promise((resolve) => {
        const socket = dgram.createSocket('udp4')
        socket.connect(5353, FAR, () => resolve(sent(socket)(null)))
        socket.on('error', (error) => resolve(sent(socket)(error)))
      }),
  },
  'ChildProcess#spawn (spawn, exec, execFile, fork)': {
    owner: childProcess.ChildProcess.prototype as unknown as Record<string, unknown>,
    key: 'spawn',
    call: async () => {
      try {
        const child = childProcess.spawn(process.execPath, ['-e', ''])
        await new Promise((resolve) => child.on('exit', resolve))
        return undefined
      } catch (error) {
        return error
      }
    },
  },
}

const NODE_OWN = Object.fromEntries(Object.entries(WAYS).map(([name, way]) => [name, way.owner[way.key]]))

/** Patches each way out as a team's interceptor would: a wrapper in front of what is there. */
function patchAsTheTeam() {
  const seen: string[] = []
  const patches = Object.entries(WAYS).map(([name, way]) => {
    const before = way.owner[way.key] as (...args: unknown[]) => unknown
    const wrapper = function teamPatch(this: unknown, ...args: unknown[]) {
      seen.push(name)
      return before.apply(this, args)
    }
    way.owner[way.key] = wrapper
    return { way, before, wrapper }
  })
  const unpatch = () => {
    for (const { way, before, wrapper } of patches)
      if (way.owner[way.key] === wrapper) way.owner[way.key] = before
  }
  return { seen, patches, unpatch }
}

const SETUPS: Record<string, () => () => unknown> = {
  "agent-tape's own interception": () => {
    const boundary = installHttpBoundary({ childProcesses: 'refuse' })
    return () => boundary.dispose()
  },
  "the team's MSW server (interception: 'msw')": () =>
    useMswInterception({ modelEndpoints: [], allowHosts: [], childProcesses: 'refuse' }),
}

describe.each(Object.entries(SETUPS))('set up with %s, patched by the team after the setup', (_, setUp) => {
  let dispose: () => unknown
  let team: ReturnType<typeof patchAsTheTeam>
  const store = createMemoryStore()
  beforeAll(() => {
    dispose = setUp()
    team = patchAsTheTeam()
  })
  afterAll(() => team.unpatch())

  it.each(Object.keys(WAYS))(
    '%s: the team sees the call first, the guard refuses what it lets through',
    async (name) => {
      team.seen.length = 0
      const run = await runTaped(store, `${name}.jsonl`, 'auto', () => WAYS[name]!.call())
      expect(team.seen).toEqual([name])
      expect(isAgentTapeError(run.failure) && run.failure.code).toBe('ERR_TAPE_NETWORK')
    },
  )

  it("keeps the team's patches once disposed; the next setup leaves Node's own methods as they were", async () => {
    await dispose()
    for (const { way, wrapper } of team.patches) expect(way.owner[way.key]).toBe(wrapper)
    // Outside every tape and disposed, a call passes the team's patch to Node.
    team.seen.length = 0
    const error = await WAYS['ChildProcess#spawn (spawn, exec, execFile, fork)']!.call()
    expect(error).toBeUndefined()
    expect(team.seen).toEqual(['ChildProcess#spawn (spawn, exec, execFile, fork)'])
    // The team removes its patch after the setup's disposal (Jest runs the afterAll hooks in the
    // order they were added): the next file's setup and its disposal leave Node's own methods.
    team.unpatch()
    const disposeNext = setUp()
    await disposeNext()
    for (const [name, way] of Object.entries(WAYS)) expect(way.owner[way.key]).toBe(NODE_OWN[name])
  })
})
