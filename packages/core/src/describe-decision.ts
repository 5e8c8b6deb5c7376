import { boundaryLabel } from './tape-context.js'

/**
 * The kind of the decisions of a realtime WebSocket session with a model (the HTTP boundary's):
 * its opening and each client message, the server's frames after it as the outcome.
 */
export const SESSION_KIND = 'websocket'

/**
 * A short human label for a decision: `tool "refund"`, `model request (gpt-4o)`, `env [HOME]`.
 * A boundary that labels its own decisions (see `addDecisionLabels`) is asked first.
 */
export function describeDecision(kind: string, input: unknown): string {
  const label = boundaryLabel(kind, input)
  if (label !== undefined) return label
  const record = typeof input === 'object' && input !== null ? (input as Record<string, unknown>) : {}
  if (kind === 'tool' && typeof record.name === 'string') return `tool ${JSON.stringify(record.name)}`
  if (kind === 'env' && Array.isArray(record.keys)) return `env read [${record.keys.join(', ')}]`
  // A model decision made with `tape.call('llm', { model, … })`; HTTP boundaries describe their own.
  if (kind === 'llm')
    return typeof record.model === 'string' ? `model request (${record.model})` : 'model request'
  if (kind === 'mcp' && typeof record.method === 'string') {
    const params =
      typeof record.params === 'object' && record.params !== null
        ? (record.params as Record<string, unknown>)
        : {}
    const target =
      typeof params.name === 'string' ? params.name : typeof params.uri === 'string' ? params.uri : undefined
    return `mcp ${record.method}${target === undefined ? '' : ` ${JSON.stringify(target)}`}`
  }
  if (kind === 'http' && typeof record.method === 'string' && typeof record.url === 'string') {
    return `http ${record.method} ${record.url}`
  }
  return kind
}

/** The label of a loaded decision, read while its input was at hand (see {@link rememberLabel}). */
const LABEL = Symbol('agent-tape.label')

/**
 * Keeps the label of a decision whose input is rebuilt on demand (a patched input of a loaded
 * cassette), so that reports naming every decision of a long run do not rebuild every input.
 * Kept on the record itself, out of sight (a weak map of a long run's records slows the GC).
 */
export function rememberLabel(record: object, label: string): void {
  Object.defineProperty(record, LABEL, { value: label, configurable: true })
}

/** The label of a recorded decision: {@link describeDecision} of its kind and input. */
export function decisionLabel(record: { kind: string; in: unknown }): string {
  return (record as { [LABEL]?: string })[LABEL] ?? describeDecision(record.kind, record.in)
}

/** `the main lane` or `lane "researcher"`. */
export function describeLane(lane?: string): string {
  return lane === undefined || lane === '' ? 'the main lane' : `lane ${JSON.stringify(lane)}`
}

/** `step 3` or `step 3 of lane "researcher"`. */
export function describePosition(step: number, lane?: string): string {
  return lane === undefined ? `step ${step}` : `step ${step} of lane ${JSON.stringify(lane)}`
}
