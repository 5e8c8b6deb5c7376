import { mkdtempSync, readdirSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { CASSETTE_ATTRIBUTE, createCapture } from '@agent-tape/capture'
import { trace } from '@opentelemetry/api'
import { InMemorySpanExporter, NodeTracerProvider, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-node'
import { afterAll, expect, it } from 'vitest'

const exporter = new InMemorySpanExporter()
const provider = new NodeTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] })
provider.register()
const dir = mkdtempSync(join(tmpdir(), 'agent-tape-capture-trace-'))
afterAll(async () => {
  await provider.shutdown()
  rmSync(dir, { recursive: true, force: true })
})

/** A request's span, active while `fn` runs, as an HTTP instrumentation makes one. */
function inSpan<T>(name: string, fn: () => Promise<T>): Promise<T> {
  return trace.getTracer('test').startActiveSpan(name, async (span) => {
    try {
      return await fn()
    } finally {
      span.end()
    }
  })
}

it('names the cassette of a kept run on the span active as it ran, and nothing on a discarded one', async () => {
  // The API loads as the capture is created: the first run links its span at once.
  const capture = createCapture({ dir })
  await inSpan('POST /triage ok', () => capture.run('triage', { n: 1 }, async () => 'fine'))
  await inSpan('POST /triage failed', () =>
    capture.run('triage', { n: 2 }, () => Promise.reject(new Error('refund refused'))).catch(() => 'handled'),
  )
  await inSpan('POST /triage marked', () =>
    capture.run('triage', { n: 3 }, async () => {
      capture.fail('wrong refund')
      return 'answer'
    }),
  )
  await capture.close()
  const files = readdirSync(dir).sort()
  expect(files).toHaveLength(2)
  const attributes = Object.fromEntries(
    exporter.getFinishedSpans().map((span) => [span.name, span.attributes[CASSETTE_ATTRIBUTE]]),
  )
  expect(CASSETTE_ATTRIBUTE).toBe('agent_tape.cassette')
  expect(attributes['POST /triage ok']).toBeUndefined()
  const linked = [attributes['POST /triage failed'], attributes['POST /triage marked']]
  expect(linked.map((path) => String(path).slice(dir.length + 1)).sort()).toEqual(files)
  expect(linked.every((path) => String(path).startsWith(`${dir}/`))).toBe(true)
})
