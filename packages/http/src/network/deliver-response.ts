/**
 * Answers an undici dispatch handler with a fetch `Response`, in either handler API: the one
 * undici 7 and Node's built-in fetch use (`onConnect`, `onHeaders`, `onData`, `onComplete`,
 * `onError`) or undici 8's (`onRequestStart`, `onResponseStart`, `onResponseData`,
 * `onResponseEnd`, `onResponseError`, with a controller). Pausing is honoured both ways.
 */
export interface DispatchHandler {
  onConnect?(abort: (reason?: unknown) => void, context?: unknown): void
  onHeaders?(
    status: number,
    rawHeaders: Buffer[],
    resume: () => void,
    statusText: string,
  ): boolean | undefined
  onData?(chunk: Buffer): boolean | undefined
  onComplete?(trailers: Buffer[]): void
  onError?(error: Error): void
  onRequestStart?(controller: Controller, context: unknown): void
  onResponseStart?(
    controller: Controller,
    status: number,
    headers: Record<string, string | string[]>,
    statusText: string,
  ): void
  onResponseData?(controller: Controller, chunk: Buffer): void
  onResponseEnd?(controller: Controller, trailers: Record<string, string>): void
  onResponseError?(controller: Controller, error: Error): void
  onUpgrade?(status: number, rawHeaders: Buffer[], socket: unknown): void
  onRequestUpgrade?(
    controller: Controller,
    status: number,
    headers: Record<string, string>,
    socket: unknown,
  ): void
}

interface Controller {
  readonly aborted: boolean
  readonly paused: boolean
  readonly reason: unknown
  rawHeaders: Buffer[]
  rawTrailers: Buffer[]
  abort(reason?: unknown): void
  pause(): void
  resume(): void
}

export function deliverError(handler: DispatchHandler, error: Error): void {
  if (usesControllerApi(handler)) handler.onResponseError?.(createFlow().controller, error)
  else handler.onError?.(error)
}

/** Answers an upgrade (a WebSocket's) with `101 Switching Protocols`, its headers and the socket it runs over. */
export function deliverUpgrade(
  handler: DispatchHandler,
  headers: Record<string, string>,
  socket: unknown,
): void {
  const flow = createFlow()
  if (usesControllerApi(handler)) {
    handler.onRequestStart?.(flow.controller, {})
    handler.onRequestUpgrade?.(flow.controller, 101, headers, socket)
  } else {
    handler.onConnect?.((reason) => flow.controller.abort(reason), {})
    const raw = Object.entries(headers).flatMap(([name, value]) => [Buffer.from(name), Buffer.from(value)])
    handler.onUpgrade?.(101, raw, socket)
  }
}

export async function deliverResponse(handler: DispatchHandler, response: Response): Promise<void> {
  const flow = createFlow()
  const modern = usesControllerApi(handler)
  const rawHeaders: Buffer[] = []
  const headers: Record<string, string | string[]> = {}
  response.headers.forEach((value, name) => {
    rawHeaders.push(Buffer.from(name), Buffer.from(value))
    const previous = headers[name]
    headers[name] =
      previous === undefined ? value : [...(Array.isArray(previous) ? previous : [previous]), value]
  })
  flow.controller.rawHeaders = rawHeaders
  const reader = response.body?.getReader()
  flow.onAbort = (reason) => void reader?.cancel(reason).catch(() => {})
  try {
    if (modern) {
      handler.onRequestStart?.(flow.controller, {})
      if (flow.controller.aborted) throw flow.controller.reason
      handler.onResponseStart?.(flow.controller, response.status, headers, response.statusText)
    } else {
      handler.onConnect?.((reason) => flow.controller.abort(reason), {})
      if (flow.controller.aborted) throw flow.controller.reason
      if (
        handler.onHeaders?.(
          response.status,
          rawHeaders,
          () => flow.controller.resume(),
          response.statusText,
        ) === false
      )
        flow.controller.pause()
    }
    for (;;) {
      await flow.whilePaused()
      if (flow.controller.aborted) throw flow.controller.reason
      const next = reader ? await reader.read() : { done: true as const, value: undefined }
      if (next.done) break
      const chunk = Buffer.from(next.value)
      if (modern) handler.onResponseData?.(flow.controller, chunk)
      else if (handler.onData?.(chunk) === false) flow.controller.pause()
    }
    if (modern) handler.onResponseEnd?.(flow.controller, {})
    else handler.onComplete?.([])
  } catch (error) {
    const reason = error instanceof Error ? error : new Error(String(error ?? 'aborted'))
    if (modern) handler.onResponseError?.(flow.controller, reason)
    else handler.onError?.(reason)
  }
}

function usesControllerApi(handler: DispatchHandler): boolean {
  return typeof handler.onResponseStart === 'function' || typeof handler.onRequestStart === 'function'
}

function createFlow() {
  let paused = false
  let aborted = false
  let reason: unknown
  let wake: (() => void) | undefined
  const flow = {
    onAbort: undefined as ((reason: unknown) => void) | undefined,
    controller: {
      get aborted() {
        return aborted
      },
      get paused() {
        return paused
      },
      get reason() {
        return reason
      },
      rawHeaders: [] as Buffer[],
      rawTrailers: [] as Buffer[],
      abort(why?: unknown) {
        if (aborted) return
        aborted = true
        reason = why ?? new Error('The request was aborted')
        flow.onAbort?.(reason)
        wake?.()
      },
      pause() {
        paused = true
      },
      resume() {
        paused = false
        wake?.()
      },
    } satisfies Controller,
    whilePaused(): Promise<void> {
      if (!paused || aborted) return Promise.resolve()
      return new Promise<void>((resolve) => {
        wake = () => {
          wake = undefined
          resolve()
        }
      })
    },
  }
  return flow
}
