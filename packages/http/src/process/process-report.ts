import { mkdirSync, renameSync, writeFileSync } from 'node:fs'
import { join, relative } from 'node:path'
import {
  type Cassette,
  type DecisionState,
  type DivergenceState,
  isAgentTapeError,
  SecretScanner,
  scanCassette,
  secretEnvValues,
  serializeCassette,
  type Tape,
  tapeInternals,
} from '@agent-tape/core/internal'
import type { ProcessPlace } from './process-place.js'
import { fileNameOf, type ProcessSessionConfig, sessionFiles } from './session.js'

/** What one Node process of a session did, written as it exits (`reports/<path>.json`). */
export interface ProcessReport {
  pid: number
  /** Its tree path (see `ProcessPlace`). */
  path: string
  /** The lane of its decisions; absent when it made none. */
  lane?: string
  /** Its main script, relative to the folder it ran in (no arguments: they may hold secrets). */
  script: string
  /** Set for a process outside Node, whose requests came through the gateway (then `script` names its program). */
  gateway?: true
  /** The signal that ended it, when one did and nothing else listened to it. */
  signal?: string
  /** Problems to fix that did not fail the run (a model call to a host that is not a model endpoint). */
  warnings?: string[]
  /** When recording: how many decisions it kept, and how many were still in flight and left out. */
  recording?: {
    decisions: number
    inFlight: number
    refused?: string
    /** In a resumed run: how many of its decisions it replayed from the cassette and kept. */
    kept?: number
  }
  /** When replaying: how its decisions went (those of other processes left out), and its run if it diverged. */
  replay?: {
    decisions: DecisionState[]
    divergences: DivergenceState[]
    warnings: string[]
    drifted: string[]
    run?: Cassette
  }
}

export interface ReportInput {
  tape: Tape
  place: ProcessPlace
  dir: string
  config: ProcessSessionConfig
  env: NodeJS.ProcessEnv
  signal?: string
  /** What the report names the process by, when not this process's main script (a client of the gateway). */
  script?: string
}

/**
 * Writes this process's report and, when it recorded decisions, its recording beside it (the
 * decisions complete so far: the process is ending), synchronously, each through a temporary
 * file renamed into place. A recording with a secret in it is not written; the report says why.
 */
export function writeProcessReport({ tape, place, dir, config, env, signal, script }: ReportInput): void {
  const folder = sessionFiles.reports(dir)
  mkdirSync(folder, { recursive: true })
  const name = fileNameOf(place.path)
  const report: ProcessReport = {
    pid: process.pid,
    path: place.path,
    ...(place.lane === undefined ? {} : { lane: place.lane }),
    script: script ?? (process.argv[1] ? relative(process.cwd(), process.argv[1]) : ''),
    ...(script === undefined ? {} : { gateway: true as const }),
    ...(signal ? { signal } : {}),
  }
  if (config.mode === 'record' || config.mode === 'resume') {
    const cassette = tapeInternals(tape).completedRecording()
    const kept = cassette?.decisions.length ?? 0
    const state = tape.state
    report.recording = { decisions: kept, inFlight: state.recorded + state.replayed - kept }
    if (config.mode === 'resume') report.recording.kept = state.replayed
    if (state.warnings.length > 0) report.warnings = state.warnings
    if (cassette && kept > 0) {
      try {
        const scanner = new SecretScanner(secretEnvValues(env), config.allowSecrets)
        scanCassette(cassette, config.cassettePath, scanner)
        writeAtomic(join(folder, `${name}.jsonl`), serializeCassette(cassette))
      } catch (error) {
        if (!isAgentTapeError(error)) throw error
        report.recording.refused = error.message
      }
    }
  } else {
    const state = tape.state
    const run = tapeInternals(tape).divergedRun()
    report.replay = {
      decisions: state.decisions.filter((d) => d.status !== 'unused'),
      divergences: state.divergences,
      warnings: state.warnings,
      drifted: state.drifted,
      ...(run ? { run } : {}),
    }
  }
  writeAtomic(join(folder, `${name}.json`), JSON.stringify(report))
}

function writeAtomic(file: string, text: string): void {
  const temp = `${file}.${process.pid}.tmp`
  writeFileSync(temp, text)
  renameSync(temp, file)
}
