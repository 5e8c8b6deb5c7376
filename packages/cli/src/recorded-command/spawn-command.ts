import { spawn } from 'node:child_process'
import { AgentTapeError } from '@agent-tape/core/internal'

/** How a command ended: its exit code, or the signal that ended it (then `exitCode` is `null`). */
export interface CommandEnd {
  exitCode: number | null
  signal: NodeJS.Signals | null
  /** Signals this process received and passed on to the command while it ran. */
  forwarded: NodeJS.Signals[]
}

export interface SpawnInput {
  argv: readonly string[]
  cwd: string
  env: Record<string, string | undefined>
  stdio: 'inherit' | 'pipe' | 'ignore'
  /** Receives the command's output when `stdio` is `pipe`. */
  output?: { stdout(text: string): void; stderr(text: string): void }
}

const FORWARDED: readonly NodeJS.Signals[] = ['SIGINT', 'SIGTERM', 'SIGHUP']

/**
 * Runs a command to its end. SIGINT, SIGTERM and SIGHUP sent to this process are passed on to
 * it (as `npm run` does: a terminal's Ctrl-C reaches both, and a second SIGINT is harmless to a
 * process that ends on the first), so the command decides how to end and its processes write
 * what they recorded. A command that cannot start is an error saying why.
 */
export function spawnCommand(input: SpawnInput): Promise<CommandEnd> {
  const [file, ...args] = input.argv
  return new Promise((resolve, reject) => {
    const forwarded: NodeJS.Signals[] = []
    const child = spawn(file!, args, {
      cwd: input.cwd,
      env: withoutUndefined(input.env),
      stdio: input.stdio === 'inherit' ? 'inherit' : ['ignore', input.stdio, input.stdio],
    })
    if (input.stdio === 'pipe') {
      child.stdout?.setEncoding('utf8').on('data', (text: string) => input.output?.stdout(text))
      child.stderr?.setEncoding('utf8').on('data', (text: string) => input.output?.stderr(text))
    }
    const handlers = FORWARDED.map((signal) => {
      const handler = () => {
        forwarded.push(signal)
        child.kill(signal)
      }
      process.on(signal, handler)
      return () => process.removeListener(signal, handler)
    })
    const stop = () => {
      for (const remove of handlers) remove()
    }
    child.on('error', (error: NodeJS.ErrnoException) => {
      stop()
      reject(cannotStart(input, error))
    })
    child.on('close', (exitCode, signal) => {
      stop()
      resolve({ exitCode, signal, forwarded })
    })
  })
}

function cannotStart(input: SpawnInput, error: NodeJS.ErrnoException): AgentTapeError {
  const command = input.argv[0]!
  const why =
    error.code === 'ENOENT'
      ? `no such command in ${input.cwd} or on the PATH`
      : error.code === 'EACCES'
        ? 'it is not executable (permission denied)'
        : error.message
  return Object.assign(
    new AgentTapeError('ERR_TAPE_USAGE', {
      what: `Cannot run ${JSON.stringify(command)}`,
      why,
      fix: 'Check the command after --, e.g. agent-tape record run.jsonl -- node dist/agent.js; nothing was recorded',
    }),
    { exitCode: error.code === 'ENOENT' ? 127 : 126 },
  )
}

function withoutUndefined(env: Record<string, string | undefined>): Record<string, string> {
  const out: Record<string, string> = {}
  for (const [name, value] of Object.entries(env)) if (value !== undefined) out[name] = value
  return out
}
