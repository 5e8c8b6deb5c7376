import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { boundaryVariables } from './child-env.js'
import { type ProcessSessionConfig, type ProcessSlot, sessionFiles } from './session.js'
import { readSessionResults, type SessionResults } from './session-results.js'

/** A session folder that Node processes started with its variables report to. */
export interface ProcessSession {
  readonly dir: string
  /**
   * The variables that give a process the boundary of this session (the preload in
   * `NODE_OPTIONS`, kept with `nodeOptions`), in `slot`'s place in the process tree: the main
   * lane by default, or a lane of the caller's (a test's child process in `child-1`, say).
   */
  variables(nodeOptions: string | undefined, slot?: ProcessSlot): Record<string, string>
  /** What the processes reported, once they ended. */
  results(): Promise<SessionResults>
  remove(): Promise<void>
}

/**
 * Creates a session folder in the system's temp folder and writes its config: what `agent-tape
 * record` and `replay` start a command in, and what a test runner would start a test's child
 * processes in.
 *
 * @example
 * const session = await openProcessSession({ mode: 'record', id, cassettePath, modelEndpoints: [], allowHosts: [], allowSecrets: [], rerecordCommand })
 * spawn('node', ['agent.js'], { env: { ...process.env, ...session.variables(process.env.NODE_OPTIONS) } })
 */
export async function openProcessSession(config: ProcessSessionConfig): Promise<ProcessSession> {
  const dir = await mkdtemp(join(tmpdir(), 'agent-tape-session-'))
  await writeFile(sessionFiles.config(dir), JSON.stringify(config))
  return {
    dir,
    variables: (nodeOptions, slot = { path: '', lane: '' }) => boundaryVariables(dir, slot, nodeOptions),
    results: () => readSessionResults(dir),
    remove: () => rm(dir, { recursive: true, force: true }),
  }
}
