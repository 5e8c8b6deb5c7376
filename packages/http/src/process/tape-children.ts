import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import {
  AgentTapeError,
  type AgentTapeErrorCode,
  onTapeFinish,
  serializeCassette,
  type Tape,
  tapeInternals,
} from '@agent-tape/core/internal'
import { gatewayVariables } from '../gateway/address.js'
import type { GatewayProcess } from '../gateway/gateway-process.js'
import { startGatewayThread } from '../gateway/gateway-thread.js'
import type { ChildProcessConfig, ChildStart } from '../network/child-processes.js'
import { boundaryVariables } from './child-env.js'
import { type ProcessSessionConfig, type ProcessSlot, sessionFiles } from './session.js'
import { readSessionResults } from './session-results.js'

/** The session of the child processes one tape's test started. */
interface TapeChildren {
  readonly dir: string
  readonly mode: ProcessSessionConfig['mode']
  /** How many children the tape's test started: the n-th is placed at `child-<n>`. */
  started: number
  /** The gateway of the children that are not Node (and of theirs), started with the first child. */
  gateway?: GatewayProcess | undefined
}

const sessions = new WeakMap<Tape, TapeChildren>()

/**
 * Gives a child process a tape's test starts the boundary of that tape, as `agent-tape record`
 * gives the processes of a command theirs, in the lane `child-<n>` (its own children in
 * `child-<n>/<m>`): a Node child gets the preload and the session of the tape's children; a
 * program outside Node gets the variables of the gateway of the tape's children (base URLs, the
 * proxy), which runs in a thread of this process. Each records its decisions for the tape's
 * cassette or replays them from it; what it cannot answer from the cassette is refused there,
 * and the tape fails with it. Its report is read as the tape finishes
 * (see {@link adoptChildren}). A program outside Node passes the variables on to the Node
 * processes it starts, which are taped in its lane. Returns the lane; nothing is done for a tape
 * that neither records nor replays.
 */
export function tapeChild(
  start: ChildStart,
  tape: Tape,
  configs: ReadonlySet<ChildProcessConfig>,
): string | undefined {
  // A process of a recorded command gives its children the command's session (see `ProcessPlace`);
  // a run captured in a server adds nothing to the app's processes.
  if (tape.action === 'passthrough' || tape.mode === 'live' || tape.runsIn !== 'test') return undefined
  let children = sessions.get(tape)
  if (!children) {
    children = openChildSession(tape, configs)
    sessions.set(tape, children)
  }
  children.started++
  const slot: ProcessSlot = { path: `child-${children.started}`, lane: `child-${children.started}` }
  const variables = {
    ...boundaryVariables(children.dir, slot, start.getEnv('NODE_OPTIONS')),
    ...(children.gateway
      ? gatewayVariables(children.gateway.address, slot, (name) => start.getEnv(name))
      : {}),
  }
  for (const [name, value] of Object.entries(variables)) start.setEnv(name, value)
  return slot.lane
}

/**
 * The session folder of a tape's children, written at its first child, synchronously (a child is
 * being started): what each child's boundary does, and in a replay the cassette it answers from,
 * as the tape read it.
 */
function openChildSession(tape: Tape, configs: ReadonlySet<ChildProcessConfig>): TapeChildren {
  const dir = mkdtempSync(join(tmpdir(), 'agent-tape-children-'))
  const replaying = tape.action === 'replay'
  const opened = replaying ? tapeInternals(tape).openedCassette() : undefined
  const cassetteFile = opened ? join(dir, 'cassette.jsonl') : undefined
  if (opened && cassetteFile) writeFileSync(cassetteFile, serializeCassette(opened))
  // The interception's options (agent-tape's own, or those given with the team's MSW server).
  const all = [...configs]
  const config: ProcessSessionConfig = {
    mode: replaying ? (tape.mode === 'live-tools' ? 'live-tools' : 'replay') : 'record',
    id: tape.id,
    cassettePath: tape.cassettePath,
    ...(cassetteFile ? { cassetteFile } : {}),
    // What a child's boundary can be told: base URLs and host names (a function or a pattern stays in this process).
    modelEndpoints: all
      .flatMap((c) => c.modelEndpoints ?? [])
      .filter((e): e is string => typeof e === 'string'),
    allowHosts: all.flatMap((c) => c.allowHosts ?? []).filter((h): h is string => typeof h === 'string'),
    allowSecrets: [],
    rerecordCommand: tape.rerecordCommand,
  }
  writeFileSync(sessionFiles.config(dir), JSON.stringify(config))
  const children: TapeChildren = { dir, mode: config.mode, started: 0 }
  const gateway = startGatewayThread({
    dir,
    // A test's children record or replay whole (they are never resumed): the cases are the session's.
    mode: config.mode === 'resume' ? 'record' : config.mode,
    env: process.env,
    ...(all.some((c) => c.interceptHttps) ? { interceptHttps: true } : {}),
  })
  if ('failed' in gateway)
    tape.warn(
      `[agent-tape] The gateway for the test's child processes outside Node did not start (${gateway.failed}): what they send is not seen`,
    )
  else children.gateway = gateway
  return children
}

/**
 * As a tape finishes, takes in what its children did: while recording, the decisions each
 * recorded join the tape's recording (in their lanes, after the tape's own); while replaying,
 * the decisions they replayed count as used, and what diverged in a child fails the tape. A child
 * that ended without a report (killed, or still running) is said; the session is removed.
 */
export async function adoptChildren(tape: Tape): Promise<void> {
  const children = sessions.get(tape)
  if (!children) return
  sessions.delete(tape)
  try {
    const notices = (await children.gateway?.close()) ?? []
    if (notices.length > 0) {
      const listed = notices.map((n) => `${n.request} (${n.why})`).join(', ')
      if (tape.action === 'record')
        tape.warn(
          `[agent-tape] Not recorded: requests of the test's child processes outside Node that the gateway could not tape: ${listed}`,
        )
      else
        tape.reportDivergence(
          childError(
            'ERR_TAPE_NETWORK',
            `[agent-tape] Cannot replay requests of the test's child processes outside Node: ${listed}; they were refused, since a replay makes no connection`,
          ),
        )
    }
    const results = await readSessionResults(children.dir)
    const internals = tapeInternals(tape)
    for (const report of results.reports) {
      for (const warning of report.warnings ?? []) tape.warn(warning)
      if (report.recording?.refused)
        tape.refuseRecording(childError('ERR_TAPE_SECRET', report.recording.refused))
      for (const divergence of report.replay?.divergences ?? [])
        tape.reportDivergence(childError(divergence.code as AgentTapeErrorCode, divergence.message))
      for (const warning of report.replay?.warnings ?? []) tape.warn(warning)
    }
    if (tape.action === 'record') {
      internals.adopt({ recorded: [...results.recordings.values()].flatMap((c) => c.decisions) })
    } else {
      const replayed = results.reports.flatMap(
        (r) => r.replay?.decisions.filter((d) => d.status === 'replayed').map((d) => d.seq) ?? [],
      )
      internals.adopt({ replayed })
    }
    if (results.unreported.length > 0) {
      const message = `${results.unreported.length === 1 ? 'A child process' : `${results.unreported.length} child processes`} of the test (${results.unreported.join(', ')}) had not ended, or ended without a report (killed with SIGKILL?), when the tape finished: what ${results.unreported.length === 1 ? 'it' : 'they'} did is not in the run. Await the child processes the test starts.`
      if (tape.action === 'record') tape.warn(message)
      else tape.reportDivergence(childError('ERR_TAPE_USAGE', `[agent-tape] ${message}`))
    }
  } finally {
    rmSync(children.dir, { recursive: true, force: true })
  }
}

/** A child's report of what failed, as the error the tape fails with (its message as the child wrote it). */
function childError(code: AgentTapeErrorCode, message: string): AgentTapeError {
  return new AgentTapeError(code, message)
}

/** Takes in the children of every tape as it finishes; returns the removal. */
export function installTapeChildren(): () => void {
  return onTapeFinish(adoptChildren)
}
