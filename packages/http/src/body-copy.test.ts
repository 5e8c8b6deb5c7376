import { describe, expect, it } from 'vitest'
import { type BodyCopy, copyLiveBody } from './body-copy.js'
import type { TimedItem } from './streams/format.js'
import { NDJSON_FORMAT } from './streams/ndjson.js'

const encode = (text: string) => new TextEncoder().encode(text)

/** A live body whose chunks the test pushes, and which never ends unless told to. */
function liveBody() {
  let controller!: ReadableStreamDefaultController<Uint8Array>
  let cancelled: unknown = 'not cancelled'
  const stream = new ReadableStream<Uint8Array>({
    start(c) {
      controller = c
    },
    cancel(reason) {
      cancelled = reason
    },
  })
  return {
    stream,
    push: (text: string) => controller.enqueue(encode(text)),
    end: () => controller.close(),
    fail: (error: Error) => controller.error(error),
    get cancelled() {
      return cancelled
    },
  }
}

const isDone = (item: TimedItem) => (item as { json?: { done?: boolean } }).json?.done === true
const texts = (copy: BodyCopy | undefined) =>
  copy?.items.map((item) => JSON.stringify((item as { json?: unknown }).json))

describe('copyLiveBody', () => {
  it('ends the copy at the last item, before the caller can read it, whether or not the caller reads on', async () => {
    const live = liveBody()
    const seen: string[] = []
    let copy: BodyCopy | undefined
    const forCaller = copyLiveBody(live.stream, {
      format: NDJSON_FORMAT,
      clock: () => 0,
      isLast: isDone,
      onCopied: (c) => {
        copy = c
        seen.push('copied')
      },
    })
    const reader = forCaller.getReader()
    live.push('{"n":1}\n')
    expect(new TextDecoder().decode((await reader.read()).value)).toBe('{"n":1}\n')
    live.push('{"n":2,"done":true}\n{"after":true}\n')
    const read = reader.read().then(() => seen.push('caller read the last item'))
    await read
    expect(seen).toEqual(['copied', 'caller read the last item'])
    // The copy ends with the last item; what followed it is the caller's only.
    expect(texts(copy)).toEqual(['{"n":1}', '{"n":2,"done":true}'])
    expect(copy!.failure).toBeUndefined()
  })

  it('ends the copy at the body’s end when no item is the last', async () => {
    const live = liveBody()
    let copy: BodyCopy | undefined
    const forCaller = copyLiveBody(live.stream, {
      format: NDJSON_FORMAT,
      clock: () => 0,
      onCopied: (c) => (copy = c),
    })
    live.push('{"n":1}\n{"n":2}')
    live.end()
    expect(await new Response(forCaller).text()).toBe('{"n":1}\n{"n":2}')
    expect(texts(copy)).toEqual(['{"n":1}', '{"n":2}'])
  })

  it('ends the copy and the caller’s body at the caller’s abort, even when the live body neither ends nor fails', async () => {
    const live = liveBody()
    const abort = new AbortController()
    let copy: BodyCopy | undefined
    const forCaller = copyLiveBody(live.stream, {
      format: NDJSON_FORMAT,
      clock: () => 0,
      isLast: isDone,
      signal: abort.signal,
      onCopied: (c) => (copy = c),
    })
    const reader = forCaller.getReader()
    live.push('{"n":1}\n')
    await reader.read()
    abort.abort()
    await expect(reader.read()).rejects.toMatchObject({ name: 'AbortError' })
    expect(texts(copy)).toEqual(['{"n":1}'])
    expect(copy!.failure).toMatchObject({ name: 'AbortError' })
    // The live body is let go.
    expect(live.cancelled).toMatchObject({ name: 'AbortError' })
  })

  it('keeps copying for the tape after the caller cancels, then lets the live body go', async () => {
    const live = liveBody()
    let copy: BodyCopy | undefined
    const forCaller = copyLiveBody(live.stream, {
      format: NDJSON_FORMAT,
      clock: () => 0,
      isLast: isDone,
      onCopied: (c) => (copy = c),
    })
    await forCaller.cancel()
    live.push('{"n":1}\n')
    live.push('{"n":2,"done":true}\n')
    await new Promise((resolve) => setTimeout(resolve, 10))
    expect(texts(copy)).toEqual(['{"n":1}', '{"n":2,"done":true}'])
    expect(live.cancelled).toBeUndefined()
  })

  it('copies the bytes of a body that is no stream, and says when it failed', async () => {
    const live = liveBody()
    let copy: BodyCopy | undefined
    const forCaller = copyLiveBody(live.stream, { clock: () => 0, onCopied: (c) => (copy = c) })
    const text = new Response(forCaller).text()
    live.push('{"a":')
    live.push('1}')
    live.end()
    expect(await text).toBe('{"a":1}')
    expect(Buffer.concat(copy!.chunks).toString()).toBe('{"a":1}')
    expect(copy!.items).toEqual([])
    expect(copy!.failure).toBeUndefined()
    const failing = liveBody()
    const failed = copyLiveBody(failing.stream, { clock: () => 0, onCopied: (c) => (copy = c) })
    const reading = new Response(failed).text()
    failing.push('{"a":')
    failing.fail(new Error('socket hang up'))
    await expect(reading).rejects.toThrow('socket hang up')
    expect(copy!.failure).toMatchObject({ message: 'socket hang up' })
  })
})
