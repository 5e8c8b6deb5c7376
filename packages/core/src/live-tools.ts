import type { DecisionRecord, RecordedError } from './cassette-format.js'
import { describeDecision, describePosition, SESSION_KIND } from './describe-decision.js'
import { createDivergence, type DivergenceError } from './divergence.js'
import { diffJson, formatChanges, preview } from './json-diff.js'
import { toJsonData } from './json-walk.js'
import { applyNormalizers, type Normalizer } from './normalize.js'
import { toRecordedError } from './recorded-error.js'
import { runInsideDecision } from './tape-context.js'

/** The kinds that `live-tools` runs for real: tool calls, and MCP calls. */
export const LIVE_KINDS: ReadonlySet<string> = new Set(['tool', 'mcp'])

/** A tool whose live result differs from its recording, as the run summary lists it. */
export interface ToolDrift {
  error: DivergenceError
  /** `step 2, tool "get_weather"` */
  label: string
}

export interface LiveRunContext {
  /** A value as a report may show it: its secrets masked as the tape's scanner masks them. */
  redact: (value: unknown) => unknown
  cassettePath: string
  rerecordCommand: string
  normalizers: readonly Normalizer[]
  /** The recorded decisions, to find the model request the result fed. */
  decisions: readonly DecisionRecord[]
}

/**
 * Runs a recorded tool live (`live-tools` mode) and compares what it returns or throws with the
 * recording, after the normalizers (ids, timestamps do not count as drift). Returns the drift
 * when they differ, or undefined.
 */
export async function runToolLive(
  record: DecisionRecord,
  run: () => unknown,
  context: LiveRunContext,
): Promise<ToolDrift | undefined> {
  let live: { out?: unknown; err?: RecordedError }
  try {
    live = { out: toJsonData(await runInsideDecision(run)) }
  } catch (error) {
    live = { err: toRecordedError(error) }
  }
  const recorded = record.err ? { err: record.err } : { out: record.out }
  const normalize = (value: unknown) => applyNormalizers(record.kind, value, context.normalizers).input
  const changes = diffJson(normalize(resultView(recorded)), normalize(resultView(live)))
  if (changes.length === 0) return undefined
  // Shown masked: a live result is not a recording, and nothing redacted it yet. A change that
  // only a secret makes is still shown, as the place where it changed.
  const shown = diffJson(
    context.redact(normalize(resultView(recorded))),
    context.redact(normalize(resultView(live))),
  )
  const lines = shown.length > 0 ? formatChanges(shown) : changes.map((c) => `${c.path}: (a secret changed)`)
  const label = `${describePosition(record.step, record.lane)}, ${describeDecision(record.kind, record.in)}`
  const next = nextModelRequest(record, context.decisions)
  const feeds = next !== undefined && feedsInto(recorded, next)
  const args = calledWith(record)
  const details = [
    `  cassette  ${context.cassettePath}`,
    ...(args === undefined ? [] : [`  args      ${preview(args, 200)}`]),
    '',
    '  Result changed (recorded → live):',
    ...lines.map((line) => `    ${line}`),
  ]
  if (next) {
    const where = describePosition(next.step, next.lane)
    const request =
      next.kind === SESSION_KIND
        ? `the next message of its session (${where}, ${describeDecision(next.kind, next.in)})`
        : `the next model request (${where})`
    details.push(
      '',
      feeds
        ? `  The model would now see a different input: this result is part of ${request}, where the recording stops being able to answer.`
        : `  ${request[0]!.toUpperCase()}${request.slice(1)} does not quote this result; it may still depend on it.`,
    )
  }
  const error = createDivergence('ERR_TAPE_DRIFT', {
    what: `Tool drift at ${label}`,
    why: 'run live, the tool returned something other than its recording',
    fix: `If its upstream changed for good, re-record this test: ${context.rerecordCommand}`,
    details,
  })
  return { error, label }
}

/** What a tool was called with: a `tape.tools` call's arguments, an MCP tool call's `arguments`. */
function calledWith(record: DecisionRecord): unknown {
  const input = record.in as { args?: unknown; params?: { arguments?: unknown } } | undefined
  if (record.kind !== 'mcp') return input?.args
  return typeof input?.params === 'object' && input.params !== null ? input.params.arguments : undefined
}

/** What a decision's outcome looks like in the drift diff: `result` or `error`. */
function resultView(outcome: { out?: unknown; err?: RecordedError }): unknown {
  return outcome.err ? { error: outcome.err } : { result: outcome.out }
}

/**
 * What a tool's result goes to next in its lane: the next model request, or, in a realtime
 * session, the session's next message (the app sends a tool's output as a message of its own,
 * in the step of the turn that asked for it).
 */
function nextModelRequest(
  record: DecisionRecord,
  decisions: readonly DecisionRecord[],
): DecisionRecord | undefined {
  return decisions.find(
    (d) =>
      d.lane === record.lane &&
      ((d.kind === 'llm' && d.step > record.step) || (d.kind === SESSION_KIND && d.seq > record.seq)),
  )
}

/**
 * Whether the recorded result appears in the model request that followed it: as text, whole (as
 * JSON) or one of its longer strings (an MCP result's text content, say), or as the structure
 * it is (Gemini's `functionResponse.response`, a realtime session's tool response).
 */
function feedsInto(recorded: { out?: unknown; err?: RecordedError }, next: DecisionRecord): boolean {
  const value = recorded.err ? recorded.err.message : recorded.out
  const needles = [typeof value === 'string' ? value : JSON.stringify(value), ...strings(value)].filter(
    (needle): needle is string => typeof needle === 'string' && needle.length >= 8,
  )
  const haystack = strings(next.in)
  if (needles.some((needle) => haystack.some((text) => text.includes(needle)))) return true
  const structure = typeof value === 'object' && value !== null ? JSON.stringify(value) : undefined
  return structure !== undefined && structure.length >= 8 && JSON.stringify(next.in).includes(structure)
}

function strings(value: unknown, out: string[] = []): string[] {
  if (typeof value === 'string') out.push(value)
  else if (Array.isArray(value)) for (const item of value) strings(item, out)
  else if (typeof value === 'object' && value !== null)
    for (const item of Object.values(value)) strings(item, out)
  return out
}
