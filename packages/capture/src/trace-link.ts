import { createRequire } from 'node:module'

/** The attribute a captured run's cassette is named by on the span that was active as it ran. */
export const CASSETTE_ATTRIBUTE = 'agent_tape.cassette'

/** What capture needs of an OpenTelemetry span; `@opentelemetry/api`'s `Span` has it. */
export interface SpanLike {
  setAttribute(key: string, value: string): unknown
  spanContext?(): { traceId: string; spanId: string }
}

/** What a cassette's header keeps of a span: its trace and its own id (see `CaptureSource.trace`). */
export function traceOf(span: SpanLike | undefined): { traceId: string; spanId: string } | undefined {
  try {
    const context = span?.spanContext?.()
    if (!context) return undefined
    const { traceId, spanId } = context
    // The invalid context of a non-recording span is all zeros: no trace to find the run by.
    if (!/^[0-9a-f]{32}$/.test(traceId) || /^0+$/.test(traceId) || !/^[0-9a-f]{16}$/.test(spanId))
      return undefined
    return { traceId, spanId }
  } catch {
    return undefined
  }
}

interface TraceApi {
  trace: { getActiveSpan(): SpanLike | undefined }
}

// Held in a variable so that no compiler or bundler resolves the optional peer dependency.
const OTEL_API = '@opentelemetry/api'

let loaded = false
let api: TraceApi | undefined

/**
 * Loads `@opentelemetry/api` when the app has it (an optional peer dependency), once per
 * process, as the capture is created: synchronously, so that the first run links its span too.
 * Its global registry makes any copy of the API see the app's tracer provider and context.
 * Without it, capture links nothing and loads nothing else.
 */
export function loadTracing(): void {
  if (loaded) return
  loaded = true
  try {
    const module = createRequire(import.meta.url)(OTEL_API) as Partial<TraceApi> & {
      default?: Partial<TraceApi>
    }
    const found = module.trace ? module : module.default
    if (typeof found?.trace?.getActiveSpan === 'function') api = found as TraceApi
  } catch {
    // Not installed: no span to link.
  }
}

/** The span active where the code runs now, when the app traces with OpenTelemetry. */
export function activeSpan(): SpanLike | undefined {
  if (!api) return undefined
  try {
    return api.trace.getActiveSpan()
  } catch {
    return undefined
  }
}

/** Names the cassette on the span, so the trace links to the run that can be replayed. */
export function linkSpan(span: SpanLike | undefined, cassette: string): void {
  if (!span) return
  try {
    span.setAttribute(CASSETTE_ATTRIBUTE, cassette)
  } catch {
    // A span that refuses an attribute must not reach the app.
  }
}
