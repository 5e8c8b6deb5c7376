import { setTimeout as sleep } from 'node:timers/promises'
import { gzipSync } from 'node:zlib'
import type { StreamWire } from './endpoint.js'
import { formatSseEvent, type SseEvent } from './sse.js'

/** What an answer is written to: node:http's response, or node:http2's compatibility one. */
export interface ResponseSink {
  readonly headersSent: boolean
  writeHead(status: number, headers: Record<string, string>): unknown
  /** node:http only: node:http2's `writeHead` sends the headers at once. */
  flushHeaders?(): void
  write(chunk: string | Uint8Array, callback: () => void): unknown
  end(chunk?: string | Uint8Array): unknown
  destroy(): unknown
}

/** Whether the client has gone: node:http's response says so itself, node:http2's through its stream. */
export function isGone(res: ResponseSink): boolean {
  const own = res as { destroyed?: boolean; stream?: { destroyed: boolean } }
  return own.stream ? own.stream.destroyed : own.destroyed === true
}

/** Server-sent events, as the OpenAI and Anthropic APIs stream. */
export const SSE_WIRE: StreamWire = {
  contentType: 'text/event-stream; charset=utf-8',
  encode: (event) => formatSseEvent(event as SseEvent),
}

/** Sends a complete JSON response, gzipped when asked for and accepted. */
export function writeJson(
  res: ResponseSink,
  status: number,
  headers: Record<string, string>,
  payload: unknown,
  gzip: { wanted: boolean; acceptEncoding: string | undefined },
  encode: (payload: unknown) => string = JSON.stringify,
): void {
  let body = Buffer.from(encode(payload), 'utf8')
  const head: Record<string, string> = { 'content-type': 'application/json', ...headers }
  if (gzip.wanted && /\bgzip\b/.test(gzip.acceptEncoding ?? '')) {
    body = gzipSync(body)
    head['content-encoding'] = 'gzip'
    head.vary = 'Accept-Encoding'
  }
  head['content-length'] = String(body.length)
  res.writeHead(status, head)
  res.end(body)
}

/** How a stream misbehaves, if it does. */
export interface StreamPlan {
  delayMs: number
  /** Send `event` after `after` events, then end the response cleanly. */
  error?: { after: number; event: unknown }
  /** Destroy the socket after this many events, leaving the chunked body unterminated. */
  cutAfter?: number
  /** Keep the response open this long after the last event, or until the client goes away. */
  holdOpenMs?: number | undefined
  /** After this many events, send nothing more until the client goes away. */
  holdAfter?: number | undefined
}

/** Streams `events` framed by `wire`, one write per event, stopping if the client goes away. */
export async function writeStream(
  res: ResponseSink,
  headers: Record<string, string>,
  events: readonly unknown[],
  wire: StreamWire,
  plan: StreamPlan,
): Promise<void> {
  res.writeHead(200, {
    'content-type': wire.contentType,
    'cache-control': 'no-cache',
    ...headers,
  })
  // SDKs resolve their request promise on the headers; send them before the first delay.
  res.flushHeaders?.()
  // One write per event, each flushed before the next: chunk boundaries then fall on events, and a
  // cut below destroys the socket only after the events before it have left.
  const write = (chunk: string | Uint8Array) =>
    new Promise<void>((resolve) => res.write(chunk, () => resolve()))
  for (let i = 0; i <= events.length; i++) {
    if (plan.cutAfter === i) {
      res.destroy()
      return
    }
    if (plan.holdAfter === i) {
      await whenGone(res)
      return
    }
    if (plan.error?.after === i) {
      // Paced as an event: a client reads it apart from the one before (some SDKs need that).
      if (plan.delayMs > 0) await sleep(plan.delayMs)
      if (isGone(res)) return
      res.end(wire.encode(plan.error.event))
      return
    }
    const event = events[i]
    if (event === undefined) break
    if (plan.delayMs > 0) await sleep(plan.delayMs)
    if (isGone(res)) return
    await write(wire.encode(event))
  }
  if (plan.holdOpenMs) await untilGone(res, plan.holdOpenMs)
  if (!isGone(res)) res.end()
}

/** Waits `ms`, or less when the client goes away first. */
async function untilGone(res: ResponseSink, ms: number): Promise<void> {
  const own = res as { once?: (event: 'close', listener: () => void) => unknown }
  if (isGone(res) || !own.once) return sleep(ms)
  const closed = new Promise<void>((resolve) => own.once!('close', resolve))
  const controller = new AbortController()
  await Promise.race([closed, sleep(ms, undefined, { signal: controller.signal }).catch(() => {})])
  controller.abort()
}

/** Settles when the client goes away (node:http's and node:http2's responses both say so by `close`). */
function whenGone(res: ResponseSink): Promise<void> {
  const own = res as { once?: (event: 'close', listener: () => void) => unknown }
  if (isGone(res) || !own.once) return Promise.resolve()
  return new Promise<void>((resolve) => own.once!('close', resolve))
}
