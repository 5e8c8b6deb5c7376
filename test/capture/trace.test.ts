import { spawnSync } from 'node:child_process'
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { CASSETTE_ATTRIBUTE, createCapture } from '@agent-tape/capture'
import { trace } from '@opentelemetry/api'
import { InMemorySpanExporter, NodeTracerProvider, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-node'
import { afterAll, expect, it } from 'vitest'
import { REPO_ROOT } from '../support/fixture-project.js'

const CLI = join(REPO_ROOT, 'packages/cli/dist/esm/bin.js')

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

it('keeps the trace of a kept run in its header, and promote --trace finds the run by it', async () => {
  const traced = mkdtempSync(join(tmpdir(), 'agent-tape-capture-traced-'))
  const project = mkdtempSync(join(tmpdir(), 'agent-tape-promote-trace-'))
  try {
    writeFileSync(join(project, 'package.json'), '{ "name": "traced", "type": "module" }\n')
    const capture = createCapture({ dir: traced, modelEndpoints: [] })
    const ids: Record<string, string> = {}
    for (const name of ['first', 'second']) {
      await trace.getTracer('test').startActiveSpan(`POST /${name}`, async (span) => {
        ids[name] = span.spanContext().traceId
        await capture.run(name, { name }, () => Promise.reject(new Error(`${name} failed`))).catch(() => {})
        span.end()
      })
    }
    await capture.close()
    const headers = readdirSync(traced).map(
      (file) => JSON.parse(readFileSync(join(traced, file), 'utf8').split('\n')[0]!).source,
    )
    expect(headers.map((source) => source.trace.traceId).sort()).toEqual(Object.values(ids).sort())
    expect(headers.every((source) => /^[0-9a-f]{16}$/.test(source.trace.spanId))).toBe(true)

    // Each run is a header alone here (it crossed no boundary): promote finds it, then says so.
    const cli = (...args: string[]) =>
      spawnSync(process.execPath, [CLI, 'promote', ...args, '--runner', 'vitest'], {
        cwd: project,
        encoding: 'utf8',
      })
    const found = cli(traced, '--trace', ids.second!.toUpperCase(), '--name', 'b', '--test', 'test/b.test.ts')
    expect(found.status).toBe(2)
    expect(found.stderr).toMatch(/_second_[0-9a-z]{12}\.jsonl has a header and no decisions/)
    const unknown = cli(traced, '--trace', 'f'.repeat(32), '--name', 'c', '--test', 'test/c.test.ts')
    expect(unknown.status).toBe(2)
    expect(unknown.stderr).toContain(`none of the 2 captured runs in ${traced} has trace ${'f'.repeat(32)}`)
    const malformed = cli(traced, '--trace', 'not-a-trace', '--name', 'd', '--test', 'test/d.test.ts')
    expect(malformed.status).toBe(2)
    expect(malformed.stderr).toContain('--trace not-a-trace is not a trace id (32 hexadecimal digits')
    // A sink's listing names the files, relative to the listing.
    writeFileSync(
      join(traced, 'listing.txt'),
      `${readdirSync(traced)
        .filter((f) => f.endsWith('.jsonl'))
        .join('\n')}\n`,
    )
    const listed = cli(
      join(traced, 'listing.txt'),
      '--trace',
      ids.first!,
      '--name',
      'a',
      '--test',
      'test/a.test.ts',
    )
    expect(listed.stderr).toMatch(/_first_[0-9a-z]{12}\.jsonl has a header and no decisions/)
  } finally {
    rmSync(traced, { recursive: true, force: true })
    rmSync(project, { recursive: true, force: true })
  }
})
