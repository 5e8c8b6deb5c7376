import { join } from 'node:path'

/**
 * Names the session folder of a command whose Node processes get the boundary: every process
 * started by the command inherits it (with `NODE_OPTIONS`), so a process the spawn hook did not
 * see still finds its session.
 */
export const SESSION_ENV = 'AGENT_TAPE_SESSION'

/**
 * Where in the command's process tree one spawned process stands (its {@link ProcessSlot}), set
 * by the parent's spawn hook for that child only; a Node process reads it and removes it from
 * its own environment, so its children never inherit it. A non-Node process in between (a
 * shell) passes it on to each Node process it starts.
 */
export const SLOT_ENV = 'AGENT_TAPE_SLOT'

/**
 * What one session asks of each Node process, written by whoever starts the command (the CLI's
 * `record` and `replay`) in `session.json` before the command runs.
 */
export interface ProcessSessionConfig {
  /**
   * `record` writes each process's decisions; `replay` and `live-tools` answer from `cassette`;
   * `resume` answers from it while a process's decisions match, and records that process from its
   * first miss on (writing its decisions, the replayed ones kept as recorded).
   */
  mode: 'record' | ReadingMode | 'resume'
  /** The id written in the header of each process's recording. */
  id: string
  /** The cassette as messages show it (relative to the project root when inside it). */
  cassettePath: string
  /** The absolute path of the cassette a replay reads. */
  cassetteFile?: string
  /** Base URLs of model endpoints beyond the known provider hosts. */
  modelEndpoints: string[]
  /** Hosts the processes may reach for real, neither recorded nor blocked. */
  allowHosts: string[]
  /** Hosts whose requests are taped as other HTTP even on loopback (a test server standing in for an API). */
  tapeHosts?: string[]
  /** Values the secret scan must accept (a test server's fake key). */
  allowSecrets: string[]
  /** Printed in every miss report: how to record the command again. */
  rerecordCommand: string
  /** Printed in a miss report: how to open the run next to its recording. */
  viewCommand?: string
  /** The model every recorded model request is sent to instead of its own (see `BoundarySettings.liveModel`). */
  liveModel?: string
}

/** The modes in which a session's processes only answer from the cassette. */
export type ReadingMode = 'replay' | 'live-tools'

/** One spawned process's place: the tree path it is named by, and the lane it is given. */
export interface ProcessSlot {
  /** Unique in the session: `''` for the command itself, `<parent>/<n>` for the n-th child it started. */
  path: string
  /** The lane its decisions go to: its own path, or the lane a launcher handed on (see `ProcessPlace`). */
  lane: string
}

/** The files of a session folder. */
export const sessionFiles = {
  config: (dir: string) => join(dir, 'session.json'),
  /** One empty file per process, claimed as it starts: names its tree path. */
  processes: (dir: string) => join(dir, 'processes'),
  /** One empty file per lane, claimed at a process's first decision. */
  lanes: (dir: string) => join(dir, 'lanes'),
  /** What each process did, written as it exits: `<path>.json`, and its recording `<path>.jsonl`. */
  reports: (dir: string) => join(dir, 'reports'),
}

/** A file name for a tree path or a lane (`''` included). */
export function fileNameOf(path: string): string {
  return `p-${encodeURIComponent(path)}`
}

/** The tree path or lane a {@link fileNameOf} name stands for. */
export function pathOfFileName(name: string): string | undefined {
  return name.startsWith('p-') ? decodeURIComponent(name.slice(2).replace(/\.jsonl?$/, '')) : undefined
}
