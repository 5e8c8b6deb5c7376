import type { StreamFormat, TimedItem } from './streams/format.js'

/** The tape's copy of a live body, as far as the answer goes. */
export interface BodyCopy {
  /** The bytes copied, as they arrived (for a stream, up to the chunk that held its last item). */
  chunks: Uint8Array[]
  /** A stream's items, up to its last item (none when the body is not read as a stream). */
  items: TimedItem[]
  /** Why the copy stopped short of the answer's end: the body failed, or the caller aborted. */
  failure?: unknown
}

export interface BodyCopyOptions {
  /** Reads the body as a stream of items (SSE, NDJSON, AWS event stream). */
  format?: StreamFormat | undefined
  /** Milliseconds since the request started, stamped on each item. */
  clock: () => number
  /**
   * Whether an item is the answer's last (`[DONE]`, `message_stop`, Ollama's `done: true`, the
   * JSON-RPC response an MCP stream carries). The copy is complete there, whether or not the
   * caller reads on: some clients stop at the last item and never drain the body.
   */
  isLast?: ((item: TimedItem) => boolean) | undefined
  /** The caller's signal: an abort ends the copy (and the caller's body) with its reason. */
  signal?: AbortSignal | undefined
  /**
   * Called once, when the copy is complete: at the body's end, at the answer's last item, or
   * when the body fails or the caller aborts. For the last item, it runs before the caller can
   * read that item, so a decision the copy completes is complete before the caller moves on.
   */
  onCopied(copy: BodyCopy): void
}

/**
 * Reads a live body once, for two readers: the caller gets every chunk as it arrives (and may
 * stop reading, or cancel), the tape a copy that ends with the answer. Unlike `tee()`, whose
 * copy ends only when the socket is drained, the copy here ends at a stream's last item, and at
 * the caller's abort even when the live body neither ends nor fails after it.
 */
export function copyLiveBody(
  source: ReadableStream<Uint8Array>,
  options: BodyCopyOptions,
): ReadableStream<Uint8Array> {
  const reader = source.getReader()
  const parser = options.format?.parser(options.clock)
  const copy: BodyCopy = { chunks: [], items: [] }
  let copying = true
  let caller!: ReadableStreamDefaultController<Uint8Array>
  let callerGone = false
  const signal = options.signal

  const endCopy = (failure?: unknown) => {
    if (!copying) return
    copying = false
    signal?.removeEventListener('abort', onAbort)
    if (failure !== undefined) copy.failure = failure
    options.onCopied(copy)
    // Nobody reads on: the rest of the body is not needed.
    if (callerGone) reader.cancel().catch(() => {})
  }
  const onAbort = () => {
    const reason = signal?.reason ?? new DOMException('This operation was aborted', 'AbortError')
    endCopy(reason)
    // As fetch does for an aborted request: the body fails with the reason, the socket is let go.
    if (!callerGone) {
      callerGone = true
      caller.error(reason)
    }
    reader.cancel(reason).catch(() => {})
  }

  const forCaller = new ReadableStream<Uint8Array>({
    start(controller) {
      caller = controller
    },
    cancel(reason) {
      callerGone = true
      if (!copying) return reader.cancel(reason).catch(() => {})
    },
  })
  if (signal?.aborted) onAbort()
  else signal?.addEventListener('abort', onAbort, { once: true })

  const take = (chunk: Uint8Array) => {
    copy.chunks.push(chunk)
    if (!parser) return
    const items = parser.push(chunk)
    const last = options.isLast ? items.findIndex(options.isLast) : -1
    if (last === -1) {
      for (const item of items) copy.items.push(item)
      return
    }
    for (const item of items.slice(0, last + 1)) copy.items.push(item)
    endCopy()
  }

  const pump = async () => {
    try {
      for (;;) {
        const { done, value } = await reader.read()
        if (done) {
          if (copying && parser) for (const item of parser.end()) copy.items.push(item)
          endCopy()
          if (!callerGone) caller.close()
          return
        }
        if (copying) take(value)
        if (!callerGone) caller.enqueue(value)
        else if (!copying) return
      }
    } catch (error) {
      endCopy(error)
      if (!callerGone) caller.error(error)
    }
  }
  void pump()
  return forCaller
}
