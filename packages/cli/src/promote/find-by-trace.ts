import { open, readdir, readFile, stat } from 'node:fs/promises'
import { dirname, join, resolve } from 'node:path'
import { usageError } from '../args.js'
import { displayPath } from '../cassette-files.js'

const COMMAND = 'agent-tape promote'

/** How much of a file is read to find its header line: far more than any header. */
const HEADER_BYTES = 64 * 1024

/**
 * The captured run of trace `traceId`: searched in a capture folder (its `.jsonl` files), or in
 * a listing of the files a sink wrote (one path a line, relative to the listing's folder), by the
 * trace each run's header keeps (`source.trace`). Only each file's header line is read. Exactly
 * one run must match: none, or several (a request retried under one trace), is said with what
 * to do instead.
 */
export async function findRunByTrace(where: string, traceId: string, cwd: string): Promise<string> {
  const id = traceId.trim().toLowerCase()
  if (!/^[0-9a-f]{32}$/.test(id)) {
    throw usageError(
      COMMAND,
      `--trace ${traceId} is not a trace id (32 hexadecimal digits, as OpenTelemetry writes them)`,
      'Copy the trace id from the trace (e.g. 4bf92f3577b34da6a3ce929d0e0e4736)',
    )
  }
  const place = resolve(cwd, where)
  const candidates = await filesIn(place, where)
  const matches: string[] = []
  for (const file of candidates) {
    const source = (await headerOf(file))?.source as
      | { kind?: unknown; trace?: { traceId?: unknown } }
      | undefined
    if (source?.kind === 'capture' && source.trace?.traceId === id) matches.push(file)
  }
  if (matches.length === 1) return matches[0]!
  if (matches.length === 0) {
    throw usageError(
      COMMAND,
      `none of the ${candidates.length} captured runs in ${where} has trace ${id}`,
      'Check the trace id; a run is there only once it was kept (keep: "failed" keeps the runs that failed) and names its trace only when the app traced it (@opentelemetry/api, with a span active as the run started)',
    )
  }
  throw usageError(
    COMMAND,
    `${matches.length} captured runs in ${where} have trace ${id}: ${matches.map((m) => displayPath(m, cwd)).join(', ')}`,
    'Promote one of them by its path, without --trace',
  )
}

/** The cassettes of a folder, or those a listing names (a cassette itself is its only candidate). */
async function filesIn(place: string, where: string): Promise<string[]> {
  const info = await stat(place).catch(() => undefined)
  if (!info)
    throw usageError(
      COMMAND,
      `${where} does not exist`,
      'Pass the capture folder, or a listing of the files a sink wrote, with --trace',
    )
  if (info.isDirectory()) {
    return (await readdir(place))
      .filter((name) => name.endsWith('.jsonl'))
      .sort()
      .map((name) => join(place, name))
  }
  if (await headerOf(place)) return [place]
  const listing = await readFile(place, 'utf8')
  return listing
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line !== '' && !line.startsWith('#'))
    .map((line) => resolve(dirname(place), line))
}

/** A file's first line as a cassette header, or `undefined` when it is not one. */
async function headerOf(file: string): Promise<Record<string, unknown> | undefined> {
  let handle: Awaited<ReturnType<typeof open>> | undefined
  try {
    handle = await open(file, 'r')
    const buffer = Buffer.alloc(HEADER_BYTES)
    const { bytesRead } = await handle.read(buffer, 0, HEADER_BYTES, 0)
    const text = buffer.subarray(0, bytesRead).toString('utf8')
    const header = JSON.parse(text.split('\n', 1)[0]!) as unknown
    return typeof header === 'object' && header !== null && 'agentTape' in header
      ? (header as Record<string, unknown>)
      : undefined
  } catch {
    return undefined
  } finally {
    await handle?.close()
  }
}
