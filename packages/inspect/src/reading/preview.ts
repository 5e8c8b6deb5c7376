import { cutForPrinting, type HarnessIdentity, type RecordingSource } from '@agent-tape/core/internal'

/** One line of JSON, its secrets masked, then cut when longer than `max`. */
export function previewJson(value: unknown, max: number): string {
  return cutForPrinting(value === undefined ? 'undefined' : (JSON.stringify(value) ?? String(value)), max)
}

const KIND_NAMES: Record<string, [string, string]> = {
  llm: ['model request', 'model requests'],
  tool: ['tool call', 'tool calls'],
  env: ['env read', 'env reads'],
  http: ['http request', 'http requests'],
  mcp: ['MCP request', 'MCP requests'],
}

/** `1 tool call`, `3 model requests`, `2 search decisions`. */
export function countKind(kind: string, n: number): string {
  const [one, many] = KIND_NAMES[kind] ?? [`${kind} decision`, `${kind} decisions`]
  return `${n} ${n === 1 ? one : many}`
}

/** The harness a cassette was recorded under, in one line. */
export function describeHarness(h: HarnessIdentity | undefined): string {
  if (!h) return 'not recorded'
  if (!h.git) return `not compared (${h.reason})`
  const commit = `commit ${h.commit.slice(0, 12)}`
  if (h.paths.length === 0 || h.tree === null) return `${commit} (no harness paths configured)`
  return `tree ${h.tree} of ${h.paths.join(', ')} at ${commit}${h.dirty ? ' with uncommitted changes' : ''}`
}

/**
 * Where a run was recorded when not by a test, in one line: `captured run "triage" (k3j9x2p1qmzt):
 * failed, threw Error: refund refused`, or the command and how it exited. `''` for a test's own.
 */
export function describeSource(source: RecordingSource | undefined): string {
  if (!source) return ''
  if (source.kind === 'command') {
    const ended =
      source.signal !== undefined
        ? `, ended by ${source.signal}`
        : source.exitCode !== undefined && source.exitCode !== null
          ? `, exit code ${source.exitCode}`
          : ''
    return `command ${source.argv.join(' ')} in ${source.cwd}${ended}`
  }
  const run = `captured run ${JSON.stringify(source.name)} (${source.runId})`
  const outcome = source.outcome
  if (!outcome) return run
  if (outcome.ok) return `${run}: succeeded`
  const how = [
    outcome.error ? `threw ${outcome.error.name}: ${outcome.error.message}` : '',
    outcome.reason !== undefined ? `marked failed: ${outcome.reason}` : '',
  ].filter(Boolean)
  return `${run}: failed${how.length > 0 ? `, ${how.join('; ')}` : ''}`
}
