import childProcess from 'node:child_process'
import { existsSync } from 'node:fs'
import { promisify } from 'node:util'
import { createMemoryStore, isAgentTapeError } from '@agent-tape/core'
import { installHttpBoundary } from '@agent-tape/http'
import { addChildPreparer, childProcessesOf } from '@agent-tape/http/internal'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import { type CountingServer, startCountingServer } from '../support/counting-server.js'
import { runTaped } from '../support/tape-run.js'

// Child processes started by a tape's test: each is named, and taped (the default: a Node child
// gets the tape's boundary, test/network/taped-children.test.ts), started untaped
// (childProcesses: 'allow'), or refused before it starts (childProcesses: 'refuse'). A counting
// server (loopback: it passes, taped or not) shows what a child reached.
installHttpBoundary()
let server: CountingServer

beforeAll(async () => {
  server = await startCountingServer('child')
})
afterAll(() => server.close())
afterEach(() => {
  installHttpBoundary({ childProcesses: 'tape' })
})

const node = process.execPath
const FETCH_CHILD = new URL('./fixtures/fetch-child.mjs', import.meta.url).pathname
const nodeFetch = () =>
  `fetch(${JSON.stringify(`${server.origin}/from-child`)}).then((r) => r.text()).then(console.log)`
// A program that is not Node, reaching the server on its own: curl, or bash's /dev/tcp.
const curl = ['/usr/bin/curl', '/bin/curl'].find(existsSync)
const otherProgram = (): [string, string[]] =>
  curl
    ? [curl, ['-s', `${server.origin}/from-curl`]]
    : [
        'bash',
        [
          '-c',
          `exec 3<>/dev/tcp/127.0.0.1/${server.port}; printf 'GET /from-bash HTTP/1.0\\r\\n\\r\\n' >&3; cat <&3`,
        ],
      ]

// The synchronous starts block this process, and the server with it: their children connect and
// exit without waiting for an answer (the server counts the connection once this process runs).
const nodeConnect = () => `require("node:net").connect(${server.port}, "127.0.0.1", () => process.exit(0))`
const bashConnect = (): [string, string[]] => ['bash', ['-c', `exec 3<>/dev/tcp/127.0.0.1/${server.port}`]]

const exec = promisify(childProcess.exec)
const execFile = promisify(childProcess.execFile)

/** Every way to start a child process, each running something that reaches the server. */
const STARTS: Record<string, () => Promise<unknown>> = {
  'spawn (node -e fetch)': () =>
    new Promise((resolve, reject) => {
      const child = childProcess.spawn(node, ['-e', nodeFetch()])
      child.on('error', reject)
      child.on('close', resolve)
    }),
  'exec (node -e fetch, through a shell)': () => exec(`"${node}" -e '${nodeFetch()}'`),
  'execFile (a program that is not Node)': () => execFile(...otherProgram()),
  fork: () =>
    new Promise((resolve, reject) => {
      const child = childProcess.fork(FETCH_CHILD, [`${server.origin}/from-fork`], { stdio: 'ignore' })
      child.on('error', reject)
      child.on('exit', resolve)
    }),
  'spawnSync (node, connecting)': async () => childProcess.spawnSync(node, ['-e', nodeConnect()]).status,
  'execSync (node, connecting)': async () =>
    childProcess.execSync(`"${node}" -e '${nodeConnect()}'`).toString(),
  'execFileSync (bash, connecting)': async () => childProcess.execFileSync(...bashConnect()).toString(),
}

async function cassette() {
  const store = createMemoryStore()
  await runTaped(store, 'children.jsonl', 'update', async () => {})
  return store
}

describe.each([['replay'], ['update']] as const)('in %s', (mode) => {
  it.each(Object.entries(STARTS))('%s is started and named for the summary by default', async (_, start) => {
    const before = server.connections
    const run = await runTaped(await cassette(), 'children.jsonl', mode, start)
    expect(run.error).toBeUndefined()
    const named = childProcessesOf(run.tape)
    expect(named).toHaveLength(1)
    expect(named[0]).toMatch(/node|curl|bash|\/dev\/tcp|fetch/)
    expect(named[0]).not.toContain('(refused)')
    // Taped in a lane of its own; loopback passes, so the child reached the server.
    expect(named[0]).toMatch(/ \(lane child-1\)$/)
    await waitFor(() => server.connections === before + 1)
  })

  it.each(Object.entries(STARTS))(
    "%s is refused with childProcesses: 'refuse', where it is started, reaching nothing",
    async (_, start) => {
      installHttpBoundary({ childProcesses: 'refuse' })
      const before = server.connections
      const run = await runTaped(await cassette(), 'children.jsonl', mode, start)
      expect(run.error).toBe(run.failure)
      expect(isAgentTapeError(run.failure) && run.failure.code).toBe('ERR_TAPE_NETWORK')
      expect(run.failure?.message).toMatch(/^\[agent-tape\] Refused to start a child process \(/)
      expect(run.failure?.message).toContain(
        `: tape "children.jsonl" is ${mode === 'replay' ? 'replaying, and a replay never reaches the network' : 'recording'}, and the childProcesses option is 'refuse'`,
      )
      expect(childProcessesOf(run.tape)).toEqual([expect.stringMatching(/ \(refused\)$/)])
      expect(server.connections).toBe(before)
    },
  )
})

it('names the command a person would read: the shell’s command line, the program and its arguments', async () => {
  const run = await runTaped(await cassette(), 'children.jsonl', 'replay', async () => {
    await exec('echo one')
    await execFile(node, ['-e', 'process.exit(0)'])
    childProcess.execSync('echo two', { stdio: 'ignore' })
    childProcess.spawnSync('echo three', { shell: true })
  })
  expect(childProcessesOf(run.tape)).toEqual([
    'echo one (lane child-1)',
    `${node.split('/').at(-1)} -e "process.exit(0)" (lane child-2)`,
    'echo two (lane child-3)',
    'echo three (lane child-4)',
  ])
})

it('masks a secret in a command, and shortens a long one', async () => {
  const key = `sk-proj-${'A1b2C3d4E5'.repeat(5)}`
  const run = await runTaped(await cassette(), 'children.jsonl', 'replay', async () => {
    await exec(`echo "Authorization: Bearer ${key}" > /dev/null`)
    await exec(`echo ${'x'.repeat(300)} > /dev/null`)
  })
  const [secret, long] = childProcessesOf(run.tape)
  expect(secret).not.toContain(key)
  expect(secret).toContain('echo "Authorization: Bearer ')
  // The command is cut to 160 characters; its lane follows.
  expect(long!.endsWith('… (lane child-2)')).toBe(true)
  expect(long!.replace(/ \(lane child-2\)$/, '')).toHaveLength(160)
})

it('neither names nor refuses a child process started outside tapes, or in live mode', async () => {
  installHttpBoundary({ childProcesses: 'refuse' })
  const before = server.connections
  await STARTS['spawn (node -e fetch)']!()
  const live = await runTaped(
    createMemoryStore(),
    'live.jsonl',
    'live',
    STARTS['spawnSync (node, connecting)']!,
  )
  expect(live.error).toBeUndefined()
  expect(childProcessesOf(live.tape)).toEqual([])
  await waitFor(() => server.connections === before + 2)
})

it('lets a preparer change what a Node child starts with, before it starts (where a preload would go)', async () => {
  const remove = addChildPreparer((start) => {
    if (start.node)
      start.setEnv('AGENT_TAPE_CHILD_MARK', `${start.getEnv('AGENT_TAPE_CHILD_MARK') ?? ''}prepared`)
  })
  try {
    const print = ['-e', 'process.stdout.write(process.env.AGENT_TAPE_CHILD_MARK ?? "none")']
    const run = await runTaped(await cassette(), 'children.jsonl', 'replay', async () => ({
      async: (await execFile(node, print)).stdout,
      sync: childProcess
        .spawnSync(node, print, { env: { ...process.env, AGENT_TAPE_CHILD_MARK: 'kept-' } })
        .stdout.toString(),
      // A shell is no Node child: left as it is.
      notNode: (await exec(`printf %s "$${'{'}AGENT_TAPE_CHILD_MARK:-none}"`)).stdout,
    }))
    expect(run.result).toEqual({ async: 'prepared', sync: 'kept-prepared', notNode: 'none' })
    const outside = (await execFile(node, print)).stdout
    expect(outside).toBe('none')
  } finally {
    remove()
  }
})

it('refuses an unknown childProcesses value, naming the three it takes', () => {
  expect(() => installHttpBoundary({ childProcesses: 'deny' as never })).toThrow(
    /Invalid childProcesses option "deny": it is "tape" .*, "allow" .* or "refuse"/,
  )
})

async function waitFor(check: () => boolean): Promise<void> {
  for (let i = 0; i < 400 && !check(); i++) await new Promise((resolve) => setTimeout(resolve, 5))
  expect(check()).toBe(true)
}
