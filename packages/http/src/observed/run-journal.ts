import type { ReservedRequest, Tape } from '@agent-tape/core/internal'
import type { BoundaryConfig } from '../handle-request.js'

/** What `fetch` takes as headers. */
export type RequestHeaders = NonNullable<RequestInit['headers']>

/**
 * What went over the wire for one request of an observed run, as it went: the request as the
 * caller gave it to `fetch`, then the response's head, each body chunk with its time, and how the
 * body ended. Nothing here is decoded, keyed or copied: the chunks are the buffers the socket
 * delivered, which the caller's response reads as well.
 */
export interface ObservedExchange {
  method: string
  url: string
  /** The caller's headers, copied as it called (it may change its own object later). */
  headers: RequestHeaders
  /** As the caller gave it: a string is made bytes only if the run is kept. */
  body: Buffer | string | undefined
  /** The place the run held for the request (absent for one that only passes, see {@link RunJournal.observe}). */
  reserved: ReservedRequest | undefined
  config: BoundaryConfig
  /** `performance.now()` as the request was sent. */
  startedAt: number
  /** The response's head, once it came (the last one, after the redirects `fetch` followed). */
  head?: ObservedHead
  chunks: ObservedChunk[]
  /** How and when the exchange ended: the body read to its end, or failed (the request included). */
  end?: { at: number; error?: unknown }
  /** Whether its response is observed (a request that only passes is not). */
  tapped: boolean
}

export interface ObservedHead {
  status: number
  statusText: string
  /** Names and values, alternating, as the socket gave them. */
  rawHeaders: readonly (Buffer | string)[]
  at: number
}

export interface ObservedChunk {
  bytes: Buffer
  at: number
}

/** How a journal ended up unfit to be recorded from, once it is (see {@link RunJournal.spoiled}). */
export type SpoiledJournal =
  | { reason: 'max-bytes'; bytes: number }
  | { reason: 'unobserved'; url: string }
  | { reason: 'failed'; url: string; error: string }

const JOURNALS = Symbol.for('agent-tape.run-journal')
type Holder = { [JOURNALS]?: RunJournal }

/**
 * The requests of one run that is observed rather than intercepted (a run captured in a server):
 * kept as they went over the wire, in the order they were sent, within `maxBytes` in all. Past
 * the bound everything held is let go at once and the journal is spoiled (a run too large to
 * keep costs no more memory than one that is). A run that is not kept costs dropping its journal;
 * one that is kept is decided from it, off the request path (see `recordObserved`).
 */
export class RunJournal {
  readonly exchanges: ObservedExchange[] = []
  private bytes = 0
  private spoil: SpoiledJournal | undefined
  private closedAt: number | undefined

  constructor(
    readonly tape: Tape,
    private readonly maxBytes: number,
  ) {
    ;(tape as Holder)[JOURNALS] = this
  }

  /** Why the journal cannot be recorded from, or `undefined` while it can. */
  get spoiled(): SpoiledJournal | undefined {
    return this.spoil
  }

  /** The bytes it holds: the bodies of the requests and answers it kept. */
  get size(): number {
    return this.spoil ? 0 : this.bytes
  }

  /**
   * Whether the run has ended for its owner (it timed out, or was kept as it ended): a request
   * its code still sends goes out untouched, and is no part of the run.
   */
  get closed(): boolean {
    return this.closedAt !== undefined
  }

  /** Ends the run's journal: what it holds is what is recorded (see {@link closed}). */
  close(): void {
    this.closedAt ??= performance.now()
  }

  /**
   * Notes a request as it is sent. `tapped` says whether its response is to be observed too (a
   * request the run records), or only its request (one that passes, checked when the run is
   * kept). Returns `undefined` once the journal is spoiled: the request is sent and nothing kept.
   */
  observe(
    request: Pick<ObservedExchange, 'method' | 'url' | 'headers' | 'body' | 'reserved' | 'config'>,
    tapped: boolean,
  ): ObservedExchange | undefined {
    if (this.spoil || this.closedAt !== undefined || !this.count(sizeOf(request.body))) return undefined
    const exchange: ObservedExchange = { ...request, startedAt: performance.now(), chunks: [], tapped }
    this.exchanges.push(exchange)
    return exchange
  }

  /** Notes a chunk of an exchange's body; `false` once the journal is spoiled (nothing is kept). */
  chunk(exchange: ObservedExchange, bytes: Buffer): boolean {
    if (this.spoil || !this.count(bytes.byteLength)) return false
    exchange.chunks.push({ bytes, at: performance.now() })
    return true
  }

  /** Ends an exchange, with the error it failed with, if any. */
  end(exchange: ObservedExchange, error?: unknown): void {
    if (exchange.end) return
    exchange.end = error === undefined ? { at: performance.now() } : { at: performance.now(), error }
    endings.get(exchange)?.()
    endings.delete(exchange)
  }

  /** Resolves as the exchange ends (made only for one a kept run waits for, see `recordObserved`). */
  ended(exchange: ObservedExchange): Promise<void> {
    if (exchange.end) return Promise.resolve()
    return new Promise((resolve) => {
      const before = endings.get(exchange)
      endings.set(exchange, () => {
        before?.()
        resolve()
      })
    })
  }

  /** Spoils the journal because a request could not be observed (it went out all the same). */
  unobserved(url: string): void {
    this.spoilWith({ reason: 'unobserved', url })
  }

  /** Spoils the journal because noting a request failed (a bug of ours; the request went out all the same). */
  failed(url: string, error: unknown): void {
    this.spoilWith({ reason: 'failed', url, error: error instanceof Error ? error.message : String(error) })
  }

  /** Lets go of everything held: the run is not kept. */
  drop(): void {
    for (const exchange of this.exchanges) this.end(exchange)
    this.exchanges.length = 0
  }

  private count(bytes: number): boolean {
    this.bytes += bytes
    if (this.bytes <= this.maxBytes) return true
    this.spoilWith({ reason: 'max-bytes', bytes: this.bytes })
    return false
  }

  private spoilWith(spoil: SpoiledJournal): void {
    this.spoil ??= spoil
    this.drop()
  }
}

const endings = new WeakMap<ObservedExchange, () => void>()

/** What a body holds, near enough to bound a run's memory: a string counts its length. */
function sizeOf(body: Buffer | string | undefined): number {
  if (body === undefined) return 0
  return typeof body === 'string' ? body.length : body.byteLength
}

/** The journal of the run a tape records by observing, if it does. */
export function journalOf(tape: Tape): RunJournal | undefined {
  return (tape as Holder)[JOURNALS]
}
