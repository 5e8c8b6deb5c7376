import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs'
import http from 'node:http'
import type { AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { type Capture, createCapture } from '@agent-tape/capture'
import { type CaptureSource, parseCassette } from '@agent-tape/core'
import type { FakeProvider } from '@agent-tape/fake-provider'
import OpenAI from 'openai'
import { afterAll, afterEach, beforeAll, expect, it } from 'vitest'
import { askCity, startCityModel } from './support/city-agent.js'

let provider: FakeProvider
let client: OpenAI
let dir: string
const logs: string[] = []
const closing: (() => Promise<unknown>)[] = []

beforeAll(async () => {
  provider = await startCityModel()
  client = new OpenAI({ apiKey: 'sk-test-dummy', baseURL: provider.openaiBaseURL, maxRetries: 0 })
})
afterAll(() => provider.close())
afterEach(async () => {
  for (const close of closing.splice(0).reverse()) await close()
  logs.length = 0
  if (dir) rmSync(dir, { recursive: true, force: true })
})

function captureInto(options: Partial<Parameters<typeof createCapture>[0]> = {}): Capture {
  dir = mkdtempSync(join(tmpdir(), 'agent-tape-run-end-'))
  const capture = createCapture({
    dir,
    modelEndpoints: [provider.openaiBaseURL],
    log: (message) => logs.push(message),
    ...options,
  })
  closing.push(() => capture.close({ timeoutMs: 100 }))
  return capture
}

/** A node:http server whose one route runs `handler` as a captured run. */
async function serve(
  capture: Capture,
  handler: (req: http.IncomingMessage, res: http.ServerResponse) => Promise<void>,
): Promise<string> {
  const captured = capture.handler('ask', handler, {
    input: (req) => ({ url: req.url }),
  })
  // What the handler throws is answered with a 500, as a framework would.
  const server = http.createServer((req, res) => {
    captured(req, res, () => {})?.catch(() => {
      if (!res.headersSent) res.writeHead(500)
      res.end()
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  closing.push(() => {
    server.closeAllConnections()
    return new Promise((resolve) => server.close(resolve))
  })
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`
}

function kept(): CaptureSource[] {
  return readdirSync(dir)
    .filter((f) => f.endsWith('.jsonl'))
    .map((f) => parseCassette(readFileSync(join(dir, f), 'utf8'), f).header.source as CaptureSource)
}

const never = () => new Promise<void>(() => {})

/** Why a kept run failed: the reason it was marked failed with, or the message of what it threw. */
function whyFailed(source: CaptureSource): string | undefined {
  const outcome = source.outcome as { reason?: string; error?: { message: string } } | undefined
  return outcome?.reason ?? outcome?.error?.message
}

it('a run that never ends is ended as failed after maxRunMs, and kept with what it did', async () => {
  const capture = captureInto({ maxRunMs: 300 })
  await capture.ready()
  const url = await serve(capture, async () => {
    await askCity(client, 'Tunis')
    await never()
  })
  const asked = fetch(`${url}/`, { signal: AbortSignal.timeout(3000) }).catch((error: Error) => error.name)
  await expect.poll(() => capture.stats().written, { timeout: 5000 }).toBe(1)
  expect(kept()).toEqual([
    expect.objectContaining({
      outcome: { ok: false, reason: 'it was still running after maxRunMs (300 ms)' },
    }),
  ])
  const file = readdirSync(dir).find((f) => f.endsWith('.jsonl'))!
  // The three model requests it made before it hung are in it.
  expect(parseCassette(readFileSync(join(dir, file), 'utf8'), file).decisions).toHaveLength(3)
  expect(await asked).toBe('TimeoutError')
})

it('a request the client gave up on ends its run as failed, kept under keep: failed', async () => {
  const capture = captureInto()
  await capture.ready()
  let handled!: () => void
  const done = new Promise<void>((resolve) => (handled = resolve))
  const url = await serve(capture, async (_req, res) => {
    const answer = await askCity(client, 'Dakar')
    await new Promise((resolve) => setTimeout(resolve, 300))
    res.end(answer)
    handled()
  })
  const controller = new AbortController()
  const asked = fetch(`${url}/`, { signal: controller.signal }).catch((error: Error) => error.name)
  setTimeout(() => controller.abort(), 100)
  expect(await asked).toBe('AbortError')
  await done
  await expect.poll(() => capture.stats().written).toBe(1)
  expect(capture.stats()).toMatchObject({ failed: 1, written: 1, discarded: 0 })
  // What the handler answered after its client had gone is kept with it.
  expect(kept()[0]!.outcome).toEqual({
    ok: false,
    reason: 'the client closed the connection before the answer was sent',
    value: 'It is 14:05 in Dakar, 18°C.',
  })
})

it('close() waits for the runs in flight up to its deadline, ends the rest as failed and says so', async () => {
  const capture = captureInto()
  await capture.ready()
  const url = await serve(capture, async () => {
    await askCity(client, 'Lagos')
    await never()
  })
  const before = provider.requests.length
  void fetch(`${url}/`).catch(() => {})
  await expect.poll(() => provider.requests.length).toBe(before + 3)
  const started = performance.now()
  // A second to wait for the hung run, then up to a second for its file: room for a loaded machine.
  await capture.close({ timeoutMs: 1000 })
  expect(performance.now() - started).toBeLessThan(5000)
  expect(capture.stats()).toMatchObject({ failed: 1, written: 1 })
  expect(kept()[0]!.outcome).toEqual({ ok: false, reason: 'it was still running when the capture closed' })
  expect(logs).toEqual([expect.stringContaining('capture.close() ended 1 run still running after 1000 ms')])
})

it('under 200 concurrent requests every failing run is kept, the hung and the abandoned ones included, and none dropped', async () => {
  // Time limits well past what a run takes under this load, on a loaded machine too.
  const capture = captureInto({ maxRunMs: 4000 })
  await capture.ready()
  // Every 40th second request is given up on by its client once its handler is under way.
  const givenUp = new Map<number, AbortController>()
  const url = await serve(capture, async (req, res) => {
    const n = Number(new URL(req.url!, 'http://x').searchParams.get('n'))
    const answer = await askCity(client, `City-${n}`)
    if (n % 10 === 0) throw new Error(`refused ${n}`)
    if (n % 40 === 1) await never()
    if (n % 40 === 2) {
      givenUp.get(n)!.abort()
      await new Promise((resolve) => setTimeout(resolve, 200))
    }
    res.end(answer)
  })
  const outcomes = await Promise.all(
    Array.from({ length: 200 }, (_, n) => {
      const controller = new AbortController()
      if (n % 40 === 2) givenUp.set(n, controller)
      // A client gives up on a hung answer after 8 s; its run ended as timed out before that.
      const signal = n % 40 === 1 ? AbortSignal.timeout(8000) : controller.signal
      return fetch(`${url}/?n=${n}`, { signal }).then(
        (r) => r.status,
        (error: Error) => error.name,
      )
    }),
  )
  expect(outcomes.filter((o) => o === 200)).toHaveLength(170)
  await expect.poll(() => capture.stats().written, { timeout: 30_000 }).toBe(30)
  await capture.flush()
  const stats = capture.stats()
  expect(stats).toMatchObject({ recorded: 200, failed: 30, written: 30, discarded: 170 })
  expect(Object.values(stats.dropped).every((count) => count === 0)).toBe(true)
  const byRequest = new Map(
    kept().map((source) => [
      Number(/n=(\d+)/.exec((source.input as { url: string }).url)![1]),
      whyFailed(source),
    ]),
  )
  const timedOut = 'it was still running after maxRunMs (4000 ms)'
  const gaveUp = 'the client closed the connection before the answer was sent'
  for (let n = 0; n < 200; n++) {
    if (n % 10 === 0) expect(byRequest.get(n)).toBe(`refused ${n}`)
    // A hung run ends at its time limit, or when its client gives up first, under load.
    else if (n % 40 === 1) expect([timedOut, gaveUp]).toContain(byRequest.get(n))
    else if (n % 40 === 2) expect(byRequest.get(n)).toBe(gaveUp)
    else expect(byRequest.has(n)).toBe(false)
  }
  expect([...byRequest.values()].filter((reason) => reason === timedOut).length).toBeGreaterThan(0)
}, 90_000)

it('a folder that can never be made (under /proc): one log line, capture off, flush and close at once', async () => {
  const capture = createCapture({
    dir: '/proc/agent-tape-captures/runs',
    modelEndpoints: [provider.openaiBaseURL],
    log: (message) => logs.push(message),
  })
  const started = performance.now()
  await capture.ready()
  await expect(capture.run('ask', {}, () => Promise.reject(new Error('failed')))).rejects.toThrow('failed')
  await capture.flush()
  await capture.close()
  expect(performance.now() - started).toBeLessThan(5000)
  expect(capture.stats()).toMatchObject({ runs: 1, recorded: 0 })
  expect(logs).toEqual([
    expect.stringMatching(
      /^\[agent-tape\] Capture is off: cannot write captured runs to \/proc\/agent-tape-captures\/runs: ENOENT/,
    ),
  ])
})

it('drops after the first of a reason are logged as counts, not once and never again', async () => {
  const capture = captureInto({
    dir: undefined,
    sink: () => {
      throw new Error('bucket unavailable')
    },
  })
  for (let n = 0; n < 5; n++) {
    await capture.run('ask', {}, () => Promise.reject(new Error('failed'))).catch(() => {})
  }
  await capture.flush()
  expect(capture.stats().dropped['sink-error']).toBe(5)
  await capture.close()
  expect(logs).toHaveLength(2)
  expect(logs[0]).toContain('the sink threw: bucket unavailable')
  expect(logs[1]).toMatch(
    /^\[agent-tape\] Dropped 4 more captured runs \(sink-error\) in the last \d+ s: 5 dropped/,
  )
})

it('a run whose answers pass maxBytes lets them go as it runs and is dropped, the app served whole', async () => {
  const big = 'x'.repeat(256 * 1024)
  const bulky = http.createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'application/octet-stream' })
    let sent = 0
    const more = () => {
      while (sent < 40) {
        sent++
        if (!res.write(big)) {
          res.once('drain', more)
          return
        }
      }
      res.end()
    }
    more()
  })
  await new Promise<void>((resolve) => bulky.listen(0, '127.0.0.1', resolve))
  closing.push(() => new Promise((resolve) => bulky.close(resolve)))
  const bulkyUrl = `http://127.0.0.1:${(bulky.address() as AddressInfo).port}`
  const capture = captureInto({ keep: 'all', maxBytes: 1024 * 1024, modelEndpoints: [bulkyUrl] })
  await capture.ready()
  const length = await capture.run(
    'bulk',
    {},
    async () => (await (await fetch(`${bulkyUrl}/file`)).arrayBuffer()).byteLength,
  )
  expect(length).toBe(40 * big.length)
  await capture.flush()
  expect(capture.stats()).toMatchObject({ written: 0, dropped: { 'max-bytes': 1 } })
  expect(logs[0]).toContain('were let go as they passed the bound')
})
