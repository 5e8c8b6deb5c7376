import zlib from 'node:zlib'
import { runWithTape } from '@agent-tape/core/internal'
import { handleRequest } from '../handle-request.js'
import { knowBody } from '../request-body.js'
import { NULL_BODY_STATUSES, REDIRECT_STATUSES } from '../statuses.js'
import type { ObservedChunk, ObservedExchange, RunJournal } from './run-journal.js'

/** How long a kept run waits for an answer still streaming when it ended, as a test's run does. */
const PENDING_MS = 10_000

/**
 * Records a kept run from its journal into its tape, after the run: each request goes down the
 * path a request intercepted as it happens takes (`handleRequest`: keyed, checked, recorded,
 * decoded), its answer given by what was observed, and its times the ones it had. The cassette
 * is the one intercepting would have written. Requests are decided in the order they were sent,
 * each in the place the run held for it; one that overlapped another as it happened overlaps it
 * here too, so that what a recording notes of overlaps is the same.
 */
export async function recordObserved(journal: RunJournal): Promise<void> {
  journal.close()
  const { tape } = journal
  const exchanges = [...journal.exchanges]
  const begun = exchanges.map(() => signal())
  const done: Promise<void>[] = []
  for (const [index, exchange] of exchanges.entries()) {
    // What had ended before this one was sent has ended here too.
    const before = exchanges
      .slice(0, index)
      .map((other, i) => (other.end && other.end.at <= exchange.startedAt ? done[i] : undefined))
      .filter((d) => d !== undefined)
    await Promise.all(before)
    // And what was sent before this one ended is under way before it ends.
    const overlapping = exchanges
      .map((other, i) =>
        i !== index && other.startedAt < (exchange.end?.at ?? Infinity) ? begun[i]! : undefined,
      )
      .filter((b) => b !== undefined)
    done.push(
      runWithTape(tape, () => recordExchange(journal, exchange, begun[index]!, overlapping)).finally(() => {
        begun[index]!.resolve()
        exchange.reserved?.release()
      }),
    )
  }
  await Promise.all(done)
}

async function recordExchange(
  journal: RunJournal,
  exchange: ObservedExchange,
  begun: Signal,
  overlapping: Signal[],
): Promise<void> {
  await settled(journal, exchange)
  const clock = virtualClock(exchange.startedAt)
  const body = typeof exchange.body === 'string' ? Buffer.from(exchange.body) : exchange.body
  const sent = body && exchange.method !== 'GET' && exchange.method !== 'HEAD'
  const request = new Request(exchange.url, {
    method: exchange.method,
    headers: exchange.headers,
    ...(sent ? { body } : {}),
  })
  if (body) knowBody(request, body)
  const perform = async (): Promise<Response> => {
    begun.resolve()
    if (!exchange.tapped) throw new Error(`${exchange.method} ${exchange.url} was let pass, and not observed`)
    const { head, end } = exchange
    if (!head) {
      clock.set(end?.at ?? exchange.startedAt)
      throw end?.error ?? new Error('the request ended before a response came')
    }
    clock.set(head.at)
    return observedResponse(exchange, head, clock, overlapping)
  }
  const outcome = await handleRequest(request, exchange.config, perform, {
    clock: clock.now,
    reserved: exchange.reserved,
  })
  begun.resolve()
  if (outcome.type !== 'respond' || !outcome.response.body) return
  // The copy the recording keeps is complete once the caller's branch is read to its end.
  const reader = outcome.response.body.getReader()
  try {
    while (!(await reader.read()).done) {}
  } catch {
    // The body failed as it did when it happened; the recording keeps how it ended.
  }
}

/** Waits for the exchange to end, as a test's recording waits for an answer still streaming. */
async function settled(journal: RunJournal, exchange: ObservedExchange): Promise<void> {
  if (exchange.end || !exchange.tapped) return
  let timer: NodeJS.Timeout | undefined
  await Promise.race([
    journal.ended(exchange),
    new Promise<void>((resolve) => (timer = setTimeout(resolve, PENDING_MS))),
  ])
  clearTimeout(timer)
}

/**
 * The response as `fetch` gave it to the caller: its head, and its body decoded as `fetch`
 * decodes it, each chunk at the time it came; the last one waits for the requests that were
 * sent while it was still streaming.
 */
function observedResponse(
  exchange: ObservedExchange,
  head: NonNullable<ObservedExchange['head']>,
  clock: VirtualClock,
  overlapping: Signal[],
): Response {
  const headers = new Headers()
  for (let i = 0; i + 1 < head.rawHeaders.length; i += 2) {
    headers.append(String(head.rawHeaders[i]), String(head.rawHeaders[i + 1]))
  }
  const init = { status: head.status, statusText: head.statusText, headers }
  if (NULL_BODY_STATUSES.has(head.status) || exchange.method === 'HEAD') return new Response(null, init)
  const chunks = decoded(exchange.chunks, headers.get('content-encoding'), head.status)
  let next = 0
  const body = new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        const all = await chunks
        const chunk = next < all.length ? all[next++] : undefined
        if (chunk) {
          clock.set(chunk.at)
          controller.enqueue(chunk.bytes)
          return
        }
        await Promise.all(overlapping.map((s) => s.promise))
        clock.set(exchange.end?.at ?? clock.now())
        const error = exchange.end
          ? exchange.end.error
          : new Error('the answer was still streaming after the run')
        if (error === undefined) controller.close()
        else controller.error(error)
      },
    },
    { highWaterMark: 0 },
  )
  return new Response(body, init)
}

/**
 * The chunks as `fetch` hands them over: decoded by their `content-encoding` (the socket gave
 * them encoded), what each chunk decodes to at the time it came. A body that does not decode is
 * given as it came, for the recording to keep as `fetch` would have failed it.
 */
async function decoded(
  chunks: readonly ObservedChunk[],
  encoding: string | null,
  status: number,
): Promise<ObservedChunk[]> {
  const codings = (encoding ?? '')
    .toLowerCase()
    .split(',')
    .map((c) => c.trim())
    .filter((c) => c !== '' && c !== 'identity')
  if (codings.length === 0 || REDIRECT_STATUSES.has(status)) return [...chunks]
  try {
    let out: ObservedChunk[] = [...chunks]
    for (const coding of codings.reverse()) out = await decodeEach(out, coding)
    return out
  } catch {
    return [...chunks]
  }
}

/** Each chunk through one decoder, flushed after it: what it decodes to, at its time. */
async function decodeEach(chunks: readonly ObservedChunk[], coding: string): Promise<ObservedChunk[]> {
  const first = chunks.find((c) => c.bytes.byteLength > 0)?.bytes
  const decoder = createDecoder(coding, first)
  let failure: unknown
  decoder.on('error', (error) => {
    failure ??= error
  })
  const out: ObservedChunk[] = []
  const take = (at: number) => {
    const parts: Buffer[] = []
    for (let part = decoder.read() as Buffer | null; part !== null; part = decoder.read() as Buffer | null) {
      parts.push(part)
    }
    if (parts.length > 0) out.push({ bytes: Buffer.concat(parts), at })
  }
  for (const chunk of chunks) {
    decoder.write(chunk.bytes)
    await new Promise<void>((resolve) => decoder.flush(() => resolve()))
    if (failure) throw failure
    take(chunk.at)
  }
  await new Promise<void>((resolve) => decoder.end(() => resolve()))
  if (failure) throw failure
  take(chunks.at(-1)?.at ?? 0)
  return out
}

function createDecoder(
  coding: string,
  first: Buffer | undefined,
): zlib.Gunzip | zlib.Inflate | zlib.BrotliDecompress {
  if (coding === 'gzip' || coding === 'x-gzip') return zlib.createGunzip()
  // As fetch does: zlib-wrapped deflate, or the raw deflate some servers send.
  if (coding === 'deflate')
    return first !== undefined && (first[0]! & 0x0f) === 0x08 ? zlib.createInflate() : zlib.createInflateRaw()
  if (coding === 'br') return zlib.createBrotliDecompress()
  const zstd = (zlib as unknown as { createZstdDecompress?: () => zlib.Gunzip }).createZstdDecompress
  if (coding === 'zstd' && zstd) return zstd()
  throw new Error(`unknown content-encoding ${coding}`)
}

interface VirtualClock {
  now: () => number
  set(at: number): void
}

/** A clock that reads the times an exchange had as it happened, moved on as its events are given. */
function virtualClock(start: number): VirtualClock {
  let now = start
  return {
    now: () => now,
    set(at) {
      now = Math.max(now, at)
    },
  }
}

interface Signal {
  promise: Promise<void>
  resolve(): void
}

function signal(): Signal {
  let resolve!: () => void
  const promise = new Promise<void>((r) => (resolve = r))
  return { promise, resolve }
}
