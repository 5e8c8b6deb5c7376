import { readdir, readFile } from 'node:fs/promises'
import { join } from 'node:path'
import {
  type Cassette,
  type CassetteHeader,
  type DecisionRecord,
  parseCassette,
} from '@agent-tape/core/internal'
import { compareLanes } from './lane-order.js'
import type { ProcessReport } from './process-report.js'
import { pathOfFileName, sessionFiles } from './session.js'

/** What the Node processes of a session left once the command ended. */
export interface SessionResults {
  /** One per process that reported, in lane order (processes without a lane last, by tree path). */
  reports: ProcessReport[]
  /** The recording of each process that kept one, by tree path. */
  recordings: Map<string, Cassette>
  /** Tree paths of processes that started but wrote no report (ended by SIGKILL, or a crash of the engine). */
  unreported: string[]
}

/** Reads what the processes of the session in `dir` reported. */
export async function readSessionResults(dir: string): Promise<SessionResults> {
  const folder = sessionFiles.reports(dir)
  const names = await readdir(folder).catch(() => [] as string[])
  const reports: ProcessReport[] = []
  const recordings = new Map<string, Cassette>()
  for (const name of names) {
    const path = pathOfFileName(name)
    if (path === undefined) continue
    const file = join(folder, name)
    if (name.endsWith('.json')) reports.push(JSON.parse(await readFile(file, 'utf8')) as ProcessReport)
    else if (name.endsWith('.jsonl')) recordings.set(path, parseCassette(await readFile(file, 'utf8'), file))
  }
  reports.sort(
    (a, b) =>
      (a.lane === undefined ? 1 : 0) - (b.lane === undefined ? 1 : 0) ||
      compareLanes(a.lane ?? a.path, b.lane ?? b.path),
  )
  const reported = new Set(reports.map((r) => r.path))
  const started = (await readdir(sessionFiles.processes(dir)).catch(() => [] as string[]))
    .map(pathOfFileName)
    .filter((p): p is string => p !== undefined)
  const unreported = started.filter((p) => !reported.has(p)).sort(compareLanes)
  return { reports, recordings, unreported }
}

/**
 * One cassette from the recordings of several processes (or several parts of one run), each
 * already in its own lane: their decisions grouped by recording in the order given, renumbered.
 * Keys and fingerprints stay as recorded, since each part keyed its decisions in its own lane.
 */
export function mergeRecordings(header: CassetteHeader, parts: readonly Cassette[]): Cassette {
  const decisions: DecisionRecord[] = []
  for (const part of parts)
    for (const d of part.decisions) decisions.push({ ...d, seq: decisions.length + 1 })
  const overlapped = parts.some((p) => p.header.overlapped)
  return { header: { ...header, ...(overlapped ? { overlapped: true } : {}) }, decisions }
}
