import childProcess from 'node:child_process'
import { basename } from 'node:path'
import { AgentTapeError, maskForPrinting, type Tape } from '@agent-tape/core/runtime'
import { installTapeChildren, tapeChild } from '../process/tape-children.js'
import { callerPackage, captureStack } from './client-path.js'
import { type NodePatch, patchState } from './node-patch.js'
import { type NetworkOwner, networkOwner } from './owner.js'

/**
 * What a tape does with the child processes its test starts: tape them (default: each in a lane
 * of its own, see `tapeChild`), start them untaped and name them (`allow`), or refuse them.
 */
export type ChildProcessPolicy = 'tape' | 'allow' | 'refuse'

export interface ChildProcessConfig {
  childProcesses?: ChildProcessPolicy
  /** What a taped child's boundary is told: the model endpoints and hosts of the interception (see `tapeChild`). */
  modelEndpoints?: readonly unknown[]
  allowHosts?: readonly unknown[]
  /** Tape a child's HTTPS through the proxy with a certificate authority of the process's. */
  interceptHttps?: boolean
}

/**
 * A child process about to start while a tape records or replays, as a {@link ChildPreparer} sees
 * it: what runs, and its environment, which the preparer may change before the process starts.
 */
export interface ChildStart {
  /** The executable, as given (`node`, `/bin/sh`, `curl`). */
  readonly file: string
  /** Its arguments, without the executable. */
  readonly args: readonly string[]
  /** Whether it is Node.js (`node`, `process.execPath`, `fork()`): a process a preload could give the boundary. */
  readonly node: boolean
  /** The command as a person would read it: a shell's command line, or the executable and its arguments. */
  readonly command: string
  getEnv(name: string): string | undefined
  setEnv(name: string, value: string): void
}

/**
 * Prepares a child process a tape's test starts, before it starts: the one place that would give
 * a Node child the boundary (`NODE_OPTIONS=--import …` set through {@link ChildStart.setEnv}).
 */
export type ChildPreparer = (start: ChildStart, tape: Tape) => void

type Spawn = (this: childProcess.ChildProcess, options: SpawnOptions) => unknown
type Fn = (...args: never[]) => unknown

/** What `ChildProcess#spawn` receives once `child_process` has normalized a call. */
interface SpawnOptions {
  file: string
  /** The executable first, then its arguments. */
  args: string[]
  /** `KEY=value` pairs: the child's environment. */
  envPairs?: string[]
  shell?: boolean | string
}

const SYNC = ['spawnSync', 'execSync', 'execFileSync'] as const

interface ChildState {
  preparers: Set<ChildPreparer>
  started: WeakMap<Tape, string[]>
}

/**
 * Sees every child process started while a tape records or replays, from the tape's test: the
 * asynchronous ones where all of them pass (`ChildProcess#spawn`: `spawn`, `exec`, `execFile`,
 * `fork`, and what libraries build on them), the synchronous ones by their functions. Each is
 * named for the run summary (see {@link childProcessesOf}) and, by default, taped: a Node child
 * gets the boundary of the tape in a lane of its own (see `tapeChild`). With `childProcesses:
 * 'allow'` it starts untaped; with `'refuse'` it is refused, with an error thrown where it was
 * started, and the tape fails.
 */
export const childProcessHook: NodePatch<ChildProcessConfig, ChildState> = {
  name: 'child-processes',
  apply(configs) {
    const state: ChildState = { preparers: new Set(), started: new WeakMap() }
    const proto = childProcess.ChildProcess.prototype as unknown as { spawn: Spawn }
    const spawn = proto.spawn
    proto.spawn = function guardedSpawn(this: childProcess.ChildProcess, options: SpawnOptions) {
      if (options && typeof options.file === 'string')
        onStart(asyncStart(options), configs, state, guardedSpawn)
      return spawn.call(this, options)
    }
    const module = childProcess as unknown as Record<string, (...args: unknown[]) => unknown>
    const originals = SYNC.map((name) => [name, module[name]!] as const)
    const stopAdopting = installTapeChildren()
    for (const [name, original] of originals) {
      const guarded = function guardedSync(this: unknown, ...args: unknown[]) {
        const start = syncStart(name, args)
        if (start) onStart(start, configs, state, guarded)
        return original.apply(this, args)
      }
      Object.defineProperty(guarded, 'name', { value: original.name })
      module[name] = guarded
    }
    return {
      state,
      restore: () => {
        if (proto.spawn !== spawn) proto.spawn = spawn
        for (const [name, original] of originals) module[name] = original
        stopAdopting()
      },
    }
  },
}

/**
 * Adds a {@link ChildPreparer}, run for every child process a tape's test starts and that is not
 * refused. Returns its removal.
 */
export function addChildPreparer(preparer: ChildPreparer): () => void {
  const state = patchState(childProcessHook)
  if (!state) return () => {}
  state.preparers.add(preparer)
  return () => state.preparers.delete(preparer)
}

/** The child processes a tape's test started while it recorded or replayed, as commands, in order. */
export function childProcessesOf(tape: Tape): readonly string[] {
  return patchState(childProcessHook)?.started.get(tape) ?? []
}

function onStart(
  start: ChildStart,
  configs: ReadonlySet<ChildProcessConfig>,
  state: ChildState,
  below: Fn,
): void {
  if (configs.size === 0) return
  const owner = networkOwner()
  const tape = owner?.tape
  if (!owner || !tape) return
  const named = state.started.get(tape) ?? []
  state.started.set(tape, named)
  const command = maskForPrinting(shorten(start.command))
  const refuse = [...configs].some((c) => c.childProcesses === 'refuse')
  if (refuse) {
    named.push(`${command} (refused)`)
    const error = refusal(command, owner, callerPackage(captureStack(below)))
    owner.report(error)
    throw error
  }
  const lane = [...configs].some((c) => c.childProcesses === 'allow')
    ? undefined
    : tapeChild(start, tape, configs)
  named.push(lane ? `${command} (lane ${lane})` : command)
  for (const prepare of state.preparers) prepare(start, tape)
}

function refusal(command: string, owner: NetworkOwner, caller: string | undefined): AgentTapeError {
  return new AgentTapeError('ERR_TAPE_NETWORK', {
    what: `Refused to start a child process${caller ? ` from ${caller}` : ''} (${command})`,
    why: `${owner.who('it was started')}, and the childProcesses option is 'refuse': agent-tape does not see what a child process sends, so it could reach the network unrecorded`,
    fix: "Do the work in the test's own process, or leave childProcesses out (a Node child is then taped in a lane of its own)",
  })
}

const SHELLS = /^(?:sh|bash|zsh|dash|cmd(?:\.exe)?|powershell(?:\.exe)?|pwsh(?:\.exe)?)$/i

/** Reads a normalized `ChildProcess#spawn` call; its environment is the `envPairs` it will start with. */
function asyncStart(options: SpawnOptions): ChildStart {
  const args = options.args.slice(1)
  return describeStart(options.file, args, {
    get: (name) => options.envPairs?.find((pair) => pair.startsWith(`${name}=`))?.slice(name.length + 1),
    set: (name, value) => {
      const pairs = (options.envPairs ?? []).filter((pair) => !pair.startsWith(`${name}=`))
      options.envPairs = [...pairs, `${name}=${value}`]
    },
  })
}

/** Reads `spawnSync(file, args?, options?)`, `execFileSync(file, args?, options?)`, `execSync(command, options?)`. */
function syncStart(name: (typeof SYNC)[number], args: unknown[]): ChildStart | undefined {
  if (typeof args[0] !== 'string') return undefined
  const shell = name === 'execSync'
  const list = !shell && Array.isArray(args[1]) ? (args[1] as unknown[]).map(String) : []
  const at = shell ? 1 : Array.isArray(args[1]) ? 2 : 1
  if (args[at] === undefined || args[at] === null) args[at] = {}
  const options = args[at]
  if (typeof options !== 'object' || options === null) return undefined
  const env = () => ((options as { env?: NodeJS.ProcessEnv }).env ?? process.env) as NodeJS.ProcessEnv
  // `shell: true`: the file and arguments are one command line for the shell.
  const line = shell
    ? args[0]
    : (options as { shell?: unknown }).shell
      ? [args[0], ...list].join(' ')
      : undefined
  return describeStart(line === undefined ? args[0] : 'sh', line === undefined ? list : ['-c', line], {
    get: (key) => env()[key],
    set: (key, value) => {
      ;(options as { env?: NodeJS.ProcessEnv }).env = { ...env(), [key]: value }
    },
  })
}

function describeStart(
  file: string,
  args: readonly string[],
  env: { get(name: string): string | undefined; set(name: string, value: string): void },
): ChildStart {
  const program = basename(file)
  const viaShell = SHELLS.test(program) && (args[0] === '-c' || args[0] === '/d') && args.length >= 2
  const command = viaShell ? String(args.at(-1)) : [program, ...args].map(quote).join(' ')
  return {
    file,
    args,
    node: file === process.execPath || /^node(?:\.exe)?$/i.test(program),
    command,
    getEnv: env.get,
    setEnv: env.set,
  }
}

function quote(arg: string): string {
  return /^[\w@%+=:,./-]+$/.test(arg) ? arg : JSON.stringify(arg)
}

/** A command as long as a summary line can take. */
function shorten(command: string): string {
  const line = command.replace(/\s+/g, ' ').trim()
  return line.length > 160 ? `${line.slice(0, 159)}…` : line
}
