import type { Socket } from 'node:net'
import type { Tape } from '@agent-tape/core/internal'
import { ProcessPlace } from '../process/process-place.js'
import { writeProcessReport } from '../process/process-report.js'
import type { ProcessSessionConfig, ProcessSlot } from '../process/session.js'
import { openSessionTape } from '../process/session-tape.js'
import { clientProgram } from './client-program.js'

interface GatewayLane {
  place: ProcessPlace
  tape: Tape
  /** The program that sent the lane's first request, as the report names it. */
  program: string
}

/**
 * The gateway's tapes, one per place in the process tree that sent it a request: each place is
 * claimed in the session and its lane named as a Node process's would be (so a Python agent run
 * by the command has the main lane, and one started by a Node parent that parent's child lane),
 * and each writes its report as a Node process does when the gateway closes. Their keys leave out
 * the step: a process outside Node may send several requests at once (an asyncio `gather`, a
 * thread pool), in an order no code decides.
 */
export class GatewayLanes {
  private readonly lanes = new Map<string, Promise<GatewayLane>>()

  constructor(
    private readonly dir: string,
    private readonly config: ProcessSessionConfig,
    private readonly env: NodeJS.ProcessEnv,
  ) {}

  /** The tape of the place `slot` names, opened at its first request. */
  async tapeFor(slot: ProcessSlot, socket: Socket): Promise<Tape> {
    const id = JSON.stringify([slot.path, slot.lane])
    let lane = this.lanes.get(id)
    if (!lane) {
      lane = this.open(slot, clientProgram(socket) ?? 'a program outside Node')
      this.lanes.set(id, lane)
    }
    return (await lane).tape
  }

  /** Writes each lane's report (and its recording) into the session. */
  async writeReports(): Promise<void> {
    for (const lane of await Promise.all(this.lanes.values())) {
      writeProcessReport({
        tape: lane.tape,
        place: lane.place,
        dir: this.dir,
        config: this.config,
        env: this.env,
        script: lane.program,
      })
    }
  }

  private async open(slot: ProcessSlot, program: string): Promise<GatewayLane> {
    const place = new ProcessPlace(this.dir, slot)
    const tape = await openSessionTape(this.config, this.env, () => place.laneOfDecisions(), {
      stepsInKeys: false,
    })
    return { place, tape, program }
  }
}
