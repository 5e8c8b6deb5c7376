/**
 * Reads what an undici `dispatch(options, handler)` call asks for as a fetch `Request`, so that
 * requests reaching the global dispatcher (undici's own `fetch` and `request`, or a `fetch`
 * captured before the boundary was installed) are handled like every other request.
 */
export interface DispatchOptions {
  origin?: string | URL
  path?: string
  method?: string
  headers?: unknown
  body?: unknown
  upgrade?: unknown
}

// Set by the connection, not by the caller; a Request refuses some of them.
const HOP_BY_HOP = new Set([
  'host',
  'connection',
  'content-length',
  'transfer-encoding',
  'keep-alive',
  'upgrade',
  'expect',
])

export function dispatchUrl(options: DispatchOptions): URL | undefined {
  if (options.origin === undefined || options.upgrade || options.method === 'CONNECT') return undefined
  try {
    return new URL(options.path ?? '/', options.origin)
  } catch {
    return undefined
  }
}

export function dispatchHeaders(raw: unknown): Headers {
  const headers = new Headers()
  const add = (name: unknown, value: unknown) => {
    const key = String(name).toLowerCase()
    if (HOP_BY_HOP.has(key) || value === undefined || value === null) return
    for (const v of Array.isArray(value) ? value : [value]) headers.append(key, String(v))
  }
  if (Array.isArray(raw)) {
    if (raw.length > 0 && Array.isArray(raw[0]))
      for (const [name, value] of raw as unknown[][]) add(name, value)
    else for (let i = 0; i + 1 < raw.length; i += 2) add(raw[i], raw[i + 1])
  } else if (raw && typeof raw === 'object') {
    const entries =
      Symbol.iterator in raw
        ? [...(raw as Iterable<[unknown, unknown]>)]
        : Object.entries(raw as Record<string, unknown>)
    for (const [name, value] of entries) add(name, value)
  }
  return headers
}

/** The request body as bytes (undici accepts strings, buffers, blobs, form data, streams and async iterables). */
export async function dispatchBody(body: unknown, headers: Headers): Promise<Uint8Array | undefined> {
  if (body === undefined || body === null) return undefined
  if (typeof body === 'string') return new TextEncoder().encode(body)
  if (body instanceof Uint8Array) return body
  if (body instanceof ArrayBuffer) return new Uint8Array(body)
  if (ArrayBuffer.isView(body)) return new Uint8Array(body.buffer, body.byteOffset, body.byteLength)
  if (body instanceof Blob) return new Uint8Array(await body.arrayBuffer())
  if (body instanceof FormData) {
    const encoded = new Response(body)
    headers.set('content-type', encoded.headers.get('content-type') ?? 'multipart/form-data')
    return new Uint8Array(await encoded.arrayBuffer())
  }
  if (typeof (body as AsyncIterable<unknown>)[Symbol.asyncIterator] === 'function') {
    const chunks: Uint8Array[] = []
    for await (const chunk of body as AsyncIterable<unknown>) {
      chunks.push(typeof chunk === 'string' ? new TextEncoder().encode(chunk) : (chunk as Uint8Array))
    }
    return Buffer.concat(chunks)
  }
  return new TextEncoder().encode(String(body))
}
