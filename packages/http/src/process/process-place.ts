import { closeSync, mkdirSync, openSync } from 'node:fs'
import { join } from 'node:path'
import { fileNameOf, type ProcessSlot, sessionFiles } from './session.js'

/**
 * The place of this Node process in the command's process tree, and the lane its decisions go
 * to. The rules, chosen so that a replay of the same command gives every process the lane it
 * had while recording (docs/decisions/0022-command-processes.md):
 *
 * - A process is named by its tree path: the command is `''`, the n-th child a process starts
 *   is `<path>/n`, counted in the order the parent's code started them (one thread, so the
 *   same order on every run, also for children that then run concurrently).
 * - A process whose decisions begin before it starts any child keeps the lane it was given; a
 *   launcher (`tsx`, `npm run`, `npx`: it starts a child before any decision of its own) hands
 *   its lane to its first child and takes `<path>/0` for decisions it makes later. So the agent
 *   started through a launcher has the same lane as when started with `node` directly.
 * - Node processes started by one non-Node process (a shell) share the slot it was given; they
 *   are told apart by the order in which they start (tree path) and make their first decision
 *   (lane): `<slot>.2`, `<slot>.3`, … Stable when the shell runs them one after another.
 */
export class ProcessPlace {
  /** This process's tree path, claimed as it starts. */
  readonly path: string
  /** The lane of this process's decisions, once it made one. */
  lane: string | undefined
  private decided = false
  private handedOn = false
  private children = 0

  constructor(
    private readonly dir: string,
    private readonly slot: ProcessSlot,
  ) {
    mkdirSync(sessionFiles.processes(dir), { recursive: true })
    mkdirSync(sessionFiles.lanes(dir), { recursive: true })
    this.path = claim(sessionFiles.processes(dir), slot.path)
  }

  /** The lane of this process's decisions: called once, at its first decision. */
  laneOfDecisions(): string {
    this.decided = true
    const lane = this.handedOn ? childPath(this.path, 0) : this.slot.lane
    this.lane = claim(sessionFiles.lanes(this.dir), lane)
    return this.lane
  }

  /** The slot of the next child this process starts. */
  nextChild(): ProcessSlot {
    this.children++
    const path = childPath(this.path, this.children)
    if (this.children === 1 && !this.decided) {
      this.handedOn = true
      return { path, lane: this.slot.lane }
    }
    return { path, lane: path }
  }
}

function childPath(parent: string, n: number): string {
  return parent === '' ? String(n) : `${parent}/${n}`
}

/**
 * Claims `name` in `folder` by creating its file, which only one process can: the first to ask
 * gets `name`, the next ones `name.2`, `name.3`, … (`main.2` for the main lane `''`).
 */
function claim(folder: string, name: string): string {
  for (let n = 1; ; n++) {
    const candidate = n === 1 ? name : `${name === '' ? 'main' : name}.${n}`
    try {
      closeSync(openSync(join(folder, fileNameOf(candidate)), 'wx'))
      return candidate
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error
    }
  }
}
